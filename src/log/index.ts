export { appendSealed, CHECKPOINT_MIN_TAIL_BYTES, FileCheckpoints, FileLog, LOG_FILE, writesHere } from './file-log.js';
export { FOLLOW_INTERVAL_MS, type FollowOptions } from './follow.js';
export { CHECKPOINT_FILE, checkpointsOf, CLOSED_FILE, HEAD_FILE, noCheckpoints, openCheckpointParts, STATE_FILE, type CheckpointParts } from './checkpoint.js';
export { readStateCache } from './state-cache.js';
export {
  BATCH_INPUT,
  CHECKPOINT_LIMIT,
  CONFIG_FILE,
  decodeUtf8,
  EVENT_INPUT,
  fileSizeOf,
  foreignFolder,
  type ForeignFolder,
  formatBytes,
  hasSessionConfig,
  HOOK_STATE_LIMIT,
  type InputLimit,
  isFolder,
  LOCK_FILE_LIMIT,
  LOG_INPUT,
  MAX_LINE_BYTES,
  MAX_LOG_BYTES,
  openRegularFile,
  packageVersion,
  placeNewFile,
  readRange,
  readSessionConfig,
  readSideFile,
  readStandardInput,
  readTextFile,
  readTextFileUnder,
  SESSION_CONFIG_LIMIT,
  type SessionConfig,
  validateInputText,
  writeSessionConfig,
} from './files.js';
export { chainLinks, chainSum, eventContent, formatLines, PARALLEL_CHAIN_BYTES, sealLine } from './chain.js';
export { parseLines, readAsWritten, scanBytes } from './lines.js';
export { mayBeWriting, STALE_AFTER_MS, WAIT_FOR_LOCK_MS, withLock, type Lease, type LockTiming } from './lock.js';
export { MemoryLog } from './memory-log.js';
export { writeDecisionsFile, writeStatusFile } from './status-file.js';
export { appendStepSummary, stepSummarySize } from './step-summary.js';
export {
  linesOf,
  LogError,
  OutcomeUnknown,
  VersionConflict,
  type Batch,
  type EventStore,
  type Expected,
  type Resumed,
  type EventSink,
  type ClosedAt,
  type HeadForWrite,
  type BodyParts,
  type Checkpoints,
  type SealedLines,
} from './types.js';
export { inspectLog, repairLog, type LogInspection, type RepairReport } from './verify.js';
export { readHookBlocks, writeHookBlocks } from './hook-state.js';
export { findSessionDir, SESSION_FOLDER } from './find-session.js';
export { sessionDirsIn } from './session-dirs.js';
export { sessionFoldersUnder, type SessionFolder } from './session-tree.js';
export { readInputFile, writeSessionFile } from './session-files.js';
export {
  closePostgresStores,
  DatabaseError,
  databaseAt,
  GLOBAL_START,
  globalEnd,
  isPostgresUrl,
  MAX_SESSION_NAME,
  PgLog,
  readGlobal,
  sessionNameProblem,
  shownDatabase,
  streamNames,
  type GlobalCursor,
  type GlobalEvent,
} from './pg/index.js';
export { checkLogText, exportLog, importLog, looksLikeLog, type CheckedLog } from './transfer.js';
export {
  allowFolder,
  approveCommand,
  commandApproved,
  folderAllowed,
  revokeCommand,
  trustFolder,
  trustPlace,
} from './trust-store.js';
export { pauseFor } from './pause.js';

export { holdsSession, readCurrentHead } from './head.js';
export { readCurrent, writeCheckpoint } from './checkpoint.js';
export { logAt } from './find-session.js';
export { CODE_CACHE_ENV, codeCacheFolder, requireCached } from './code-cache.js';

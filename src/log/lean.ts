/*
 * The log folder's second door: what the bin's short path for `next` and a
 * stop hook (src/cli/head-answers.ts) reads and writes, which loads no event
 * schema: the head checkpoint, the hook's blocks in a row, standard input.
 * Everything here is in index.ts too.
 */
export { findSessionDir, SESSION_FOLDER } from './find-session.js';
export { holdsSession, readCurrentHead } from './head.js';
export { readHookBlocks, writeHookBlocks } from './hook-state.js';
export { EVENT_INPUT, type InputLimit } from './limits.js';
export { readStandardInput, validateInputText } from './text-file.js';
export type { EventStore } from './types.js';
export { checkpointsOf } from './types.js';
export { OutcomeUnknown } from './types.js';
export { appendSealed } from './append.js';
export { CLOSED_FILE, HEAD_FILE, readCurrent, writeCheckpoint } from './checkpoint.js';
export { openCheckpointParts } from './checkpoint-parts.js';
export { withLock } from './lock.js';
export { LOG_FILE } from './log-name.js';
export { openRegularFile, readRange } from './text-file.js';
export { hasSessionConfig } from './session-config.js';
export { isPostgresUrl, sessionNameProblem, shownDatabase } from './pg/names.js';
export { logAt } from './find-session.js';
export { commandApproved, folderAllowed, foreignFolder, trustPlace } from './trust-store.js';

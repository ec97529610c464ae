export { FileLog, LOG_FILE } from './file-log.js';
export { formatBytes, MAX_LINE_BYTES, MAX_LOG_BYTES } from './limits.js';
export { chainSum, eventContent, formatLines, parseLines, sealLine } from './lines.js';
export { STALE_AFTER_MS, WAIT_FOR_LOCK_MS } from './lock.js';
export { MemoryLog } from './memory-log.js';
export { writeStatusFile } from './status-file.js';
export { LogError, type Batch, type EventLog } from './types.js';
export { inspectLog, repairLog, type LogInspection, type RepairReport } from './verify.js';

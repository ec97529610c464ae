export { FileLog, LOG_FILE } from './file-log.js';
export { parseLine, parseLines, toLine } from './lines.js';
export { MemoryLog } from './memory-log.js';
export { STATUS_FILE, writeStatusFile } from './status-file.js';
export { LogError, type EventLog } from './types.js';

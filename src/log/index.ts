export { FileLog, LOG_FILE } from './file-log.js';
export { parseLines, toLine } from './lines.js';
export { MemoryLog } from './memory-log.js';
export { writeStatusFile } from './status-file.js';
export { LogError, type EventLog } from './types.js';
export { HOOK_STATE_FILE, readHookBlocks, writeHookBlocks } from './hook-state.js';
export { readTextFile } from './text-file.js';
export { readInputFile, writeSessionFile } from './session-files.js';

export { closePostgresStores, databaseAt, PgLog } from './pg-log.js';
export { isPostgresUrl, MAX_SESSION_NAME, sessionNameProblem, shownDatabase } from './names.js';
export { DatabaseError, type Bridge, type Notice } from './bridge.js';
export { CHANNEL, SCHEMA } from './schema.js';
export { GLOBAL_START, globalEnd, readGlobal, streamNames, type GlobalCursor, type GlobalEvent } from './global.js';

export * from './vocabulary.js';
export * from './schemas.js';
export { formatIssue } from './issues.js';
export { EventRequest } from './request.js';
export { eventJsonSchema, eventJsonSchemaText } from './json-schema.js';
export { OLDEST_VERSION, upcast, versionProblem } from './upcast.js';

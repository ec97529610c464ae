export * from './vocabulary.js';
export * from './schemas.js';
export { formatIssue } from './issues.js';
export { OLDEST_VERSION, upcast, versionProblem } from './upcast.js';

export * from './vocabulary.js';
export * from './schemas.js';
export { formatIssue } from './issues.js';

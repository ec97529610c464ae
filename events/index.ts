export * from './vocabulary.js';
export * from './schemas.js';
export { formatIssue, readIssue, type BadValue, type IssueContext, type ReadIssue } from './issues.js';
export { canonicalRequest, canonicalWord, nearestWord, oneOf, REQUEST_WORDS, SHOWN_MAX, shownValue, spellingKey, wordsAt } from './spelling.js';
export { EventRequest, requestFields } from './request.js';
export { eventJsonSchema, eventJsonSchemaText } from './json-schema.js';
export { OLDEST_VERSION, READ_AS_CURRENT, upcast, versionProblem } from './upcast.js';
export { respelled } from './respell.js';
export { codePointName, firstHiddenCharacter, HIDDEN_CHARACTER, hiddenCharacterKind, hiddenTextProblem } from './hidden.js';

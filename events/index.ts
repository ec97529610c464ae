export * from './vocabulary.js';
export * from './schemas.js';
export {
  canonicalRequest,
  canonicalWord,
  codePointName,
  EventRequest,
  firstHiddenCharacter,
  formatIssue,
  HIDDEN_CHARACTER,
  hiddenCharacterKind,
  hiddenTextProblem,
  nearestWord,
  oneOf,
  parseRequest,
  readIssue,
  REQUEST_WORDS,
  requestFields,
  SHOWN_MAX,
  shownValue,
  spellingKey,
  wordsAt,
  type BadValue,
  type IssueContext,
  type ParsedRequest,
  type ReadIssue,
} from './request.js';
export { eventJsonSchema, eventJsonSchemaText } from './json-schema.js';
export { respelled } from './respell.js';
export * from './words.js';
export * from './limits.js';

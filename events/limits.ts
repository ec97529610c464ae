/* The limits and patterns of the events' values, as plain constants: vocabulary.ts and schemas.ts build on them. */

/**
 * The version this build writes (schemas.ts says what each version carries).
 */
export const EVENT_VERSION = 7;

/** The verification gate: the longest command, the longest time limit in seconds, and the most of its output's tail a run keeps. */
export const VERIFY_COMMAND_MAX = 2000;
export const VERIFY_TIMEOUT_MAX = 86_400;
export const VERIFY_OUTPUT_MAX = 2048;
/** A run's output as recorded: lines of printable text (tabs and control characters were made spaces or dropped). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the rule keeps out
export const VERIFY_OUTPUT_PATTERN = /^[^\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

/** The most parts one gap may be split into. */
export const SPLIT_PARTS_MAX = 100;

/** The longest gap title, gap move reason and agent session id a line may carry. */
export const TITLE_MAX = 500;
export const REASON_MAX = 1000;
export const AGENT_SESSION_MAX = 256;

/**
 * A gap id: a short token such as `GAP-FLOW-020`. Letters, digits and `._-`,
 * starting with a letter or digit (vocabulary.ts says why).
 */
export const GAP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const GAP_ID_MAX = 128;

/**
 * Free text shown to people: one line, bounded, with no control characters
 * (C0, C1, line and paragraph separators, bidirectional overrides).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
export const PLAIN_TEXT_PATTERN = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

/**
 * A findings source's name (`eslint`, `CodeQL`, `node-tests`): what `sync`
 * files a snapshot's gaps under. Letters, digits and ` ._@/+-`, starting
 * with a letter or digit, so it reads as one word in a table and a flag.
 */
export const SOURCE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._@/+-]*$/;
export const SOURCE_NAME_MAX = 64;
/** The most findings one snapshot may carry (a batch's byte limit bounds it first in practice). */
export const SNAPSHOT_FINDINGS_MAX = 500_000;

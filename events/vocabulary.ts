import * as z from 'zod/mini';
import './zod-locale.js';
import { GAP_ID_MAX, GAP_ID_PATTERN, SOURCE_NAME_MAX, SOURCE_NAME_PATTERN } from './limits.js';
import { DECISION_KIND_WORDS, GAP_STATE_WORDS, PRESET_WORDS, ROUND_KIND_WORDS, SEVERITY_WORDS, SYNC_FORMAT_WORDS } from './words.js';

/** Gap severities, most severe first (the order every table uses). */
export const Severity = z.enum(SEVERITY_WORDS);
export type Severity = z.infer<typeof Severity>;

/** The gap lifecycle of R10: open, parked and closed states. */
export const GapState = z.enum(GAP_STATE_WORDS);
export type GapState = z.infer<typeof GapState>;

export const Preset = z.enum(PRESET_WORDS);
export type Preset = z.infer<typeof Preset>;

export const DecisionKind = z.enum(DECISION_KIND_WORDS);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** R25: a round's kind; a log line leaves it out for a work round. */
export const RoundKind = z.enum(ROUND_KIND_WORDS);
export type RoundKind = z.infer<typeof RoundKind>;

/**
 * A gap id: a short token such as `GAP-FLOW-020`. Letters, digits and `._-`,
 * starting with a letter or digit, so an id can never be Markdown, HTML, a
 * URL or a path, and never `__proto__`.
 */
export const GapId = z
  .string()
  .check(
    z.maxLength(GAP_ID_MAX, `a gap id has at most ${GAP_ID_MAX} characters`),
    z.regex(GAP_ID_PATTERN, 'a gap id is letters, digits and . _ - (starting with a letter or digit)'),
  );
export type GapId = z.infer<typeof GapId>;

/**
 * A findings source (`eslint`, `CodeQL`): the tool whose snapshots `sync`
 * reconciles with the gaps it opened. One word in a table or a flag: letters,
 * digits and ` ._@/+-`, starting with a letter or digit.
 */
export const SourceName = z
  .string()
  .check(
    z.maxLength(SOURCE_NAME_MAX, `a source name has at most ${SOURCE_NAME_MAX} characters`),
    z.regex(SOURCE_NAME_PATTERN, 'a source name is letters, digits and " ._@/+-", starting with a letter or digit'),
  );

/** The format a snapshot of findings came in. */
export const SyncFormat = z.enum(SYNC_FORMAT_WORDS);
export type SyncFormat = z.infer<typeof SyncFormat>;

/**
 * An event id: what a retrying caller passes to make an append idempotent
 * (the letters, digits, `_` and `-` of the ids gapflow makes, plus `.` and
 * `:` for ids a hook builds from its own names). Never a path, markup or a control character.
 */
export const EventId = z
  .string()
  .check(
    z.minLength(1, 'an event id is not empty'),
    z.maxLength(128, 'an event id has at most 128 characters'),
    z.regex(/^[A-Za-z0-9._:-]+$/, 'an event id is letters, digits and . _ - :'),
  );
export type EventId = z.infer<typeof EventId>;

/**
 * A policy's name as the log spells it: a short lower-case token. Which
 * names exist is the policy registry's business (src/policies), so adding a
 * policy does not touch the event schemas.
 */
export const PolicyName = z
  .string()
  .check(z.maxLength(32, 'a policy name has at most 32 characters'), z.regex(/^[a-z][a-z0-9_]*$/, 'a policy name is lower-case letters, digits and _'));
export type PolicyName = z.infer<typeof PolicyName>;

/** The states a session can be in (docs/rules.md#the-verdict-at-a-rounds-close); a round close records the one it reached. */
export const CONVERGENCE_STATES = ['CONVERGING', 'FLAT', 'STALLED', 'DIVERGENCE_WARNING', 'PAUSED', 'COMPLETE'] as const;
export const ConvergenceState = z.enum(CONVERGENCE_STATES);
export type ConvergenceState = z.infer<typeof ConvergenceState>;

/** The states a pause can remember and a resume return to. */
export const ResumableState = z.enum(['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING']);
export type ResumableState = z.infer<typeof ResumableState>;

/** How a session ended (R11, R12); STOPPED: a policy's loop asked to stop (atoms' stop request). */
export const Outcome = z.enum(['CONVERGED', 'MAX_ROUNDS', 'STOPPED', 'GOOD_ENOUGH', 'USER_APPROVED', 'STALL_EXIT', 'ABANDONED']);
export type Outcome = z.infer<typeof Outcome>;

/** What a policy says of a round (R15), and so what the combined verdict of a round can be. */
export const VERDICTS = ['progress', 'flat', 'diverging', 'converged', 'stopped', 'limit'] as const;
export const Verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof Verdict>;

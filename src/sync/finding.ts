import { GAP_ID_MAX, SOURCE_NAME_MAX, SOURCE_NAME_PATTERN, TITLE_MAX, type Severity } from '../../events/index.js';

const { createHash } = process.getBuiltinModule('node:crypto');

/*
 * What every reader of a tool's output (SARIF, JUnit, gapflow's JSON) makes
 * of it: a snapshot of one source's findings, each with the gap id its
 * identity gives, a severity and a title. Parsed here, at the edge; the
 * core compares a snapshot with the source's gaps (`findings.synced`).
 */

/** The formats `gapflow sync` reads. */
export const SYNC_FORMATS = ['sarif', 'junit', 'json'] as const;
export type SyncFormat = (typeof SYNC_FORMATS)[number];

/** One finding as a gap would record it. */
export interface Finding {
  /** The gap id its identity gives (the same finding gives the same id every run). */
  id: string;
  severity: Severity;
  title: string;
}

/** A whole snapshot of one source's current findings. */
export interface Snapshot {
  source: string;
  format: SyncFormat;
  findings: Finding[];
}

/** What a reader is told besides the text. */
export interface ReadOptions {
  /** Where the text came from, as messages name it (`results.sarif`, `stdin`). */
  file: string;
  /** The source the snapshot belongs to; else the reader's own default (the SARIF tool's name, the format's name). */
  source?: string;
  /** Severity words of the tool (`error`, `warning`, `high`...) mapped to gapflow's, over the defaults. */
  severity?: SeverityOverrides;
  /** The folder absolute `file:` URIs are shown relative to (the caller's working folder). */
  root?: string;
}

/**
 * The tool's words for how bad a finding is, each mapped to one of
 * gapflow's severities by default: SARIF's `security-severity` bands
 * (GitHub's: over 9.0 critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, 0.1 to
 * 3.9 low), SARIF's levels, and a JUnit failure or error.
 */
export const DEFAULT_SEVERITY = {
  critical: 'CRITICAL',
  high: 'HIGH',
  medium: 'MEDIUM',
  low: 'LOW',
  error: 'HIGH',
  warning: 'MEDIUM',
  note: 'LOW',
  failure: 'HIGH',
} as const satisfies Record<string, Severity>;
export type ToolSeverity = keyof typeof DEFAULT_SEVERITY;
export type SeverityOverrides = Partial<Record<ToolSeverity, Severity>>;

export const TOOL_SEVERITIES = Object.keys(DEFAULT_SEVERITY) as ToolSeverity[];

/** The gapflow severity of a tool's word, the caller's override first. */
export function severityOf(word: ToolSeverity, overrides: SeverityOverrides = {}): Severity {
  return overrides[word] ?? DEFAULT_SEVERITY[word];
}

/** A bad input: one line naming the file and where in it (a JSON pointer, a line and column), nothing written. */
export class SyncInputError extends Error {
  override readonly name = 'SyncInputError';
}

/** Refuses `text`, naming `file` and where: `results.sarif: /runs/0/results/3/message: ...`. */
export function badInput(file: string, where: string | null, why: string): never {
  throw new SyncInputError(where === null ? `${file}: ${why}` : `${file}: ${where}: ${why}`);
}

/** Why `name` cannot name a source, or null when it can. */
export function sourceNameProblem(name: string): string | null {
  if (name.length === 0) return 'a source name is empty';
  if (name.length > SOURCE_NAME_MAX) return `a source name has at most ${SOURCE_NAME_MAX} characters`;
  return SOURCE_NAME_PATTERN.test(name) ? null : 'a source name is letters, digits and " ._@/+-", starting with a letter or digit';
}

/** Characters of a rule's name kept in a gap id; anything else becomes `-`. */
const ID_UNSAFE = /[^A-Za-z0-9._-]+/g;
/** The longest part of an id taken from a rule's name. */
const RULE_PART_MAX = 64;
/** Hex digits of the identity's hash in an id: 48 bits, so 50,000 findings of one rule collide with odds of about 1 in 200,000. */
const HASH_DIGITS = 12;

/**
 * The gap id of a finding: its rule's name made id-safe, then a short hash
 * of the source and the finding's identity (`no-unused-vars-3f2a9c1b7d0e`).
 * The same source and identity give the same id every run; two sources'
 * findings never share one.
 */
export function findingId(source: string, rule: string, identity: string): string {
  const hash = createHash('sha256').update(source).update('\u0000').update(identity).digest('hex').slice(0, HASH_DIGITS);
  const part = rule
    .replace(ID_UNSAFE, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, RULE_PART_MAX)
    .replace(/[^A-Za-z0-9]+$/, '');
  const id = `${part || 'finding'}-${hash}`;
  return id.length <= GAP_ID_MAX ? id : id.slice(-GAP_ID_MAX);
}

/** Control characters, line breaks and bidirectional overrides: a title is one plain line. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this takes out
const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** A tool's message as a gap title: one line, control characters made spaces, cut to the title limit with an ellipsis. */
export function titleOf(message: string): string {
  const line = message.replace(NOT_PLAIN, ' ').replace(/\s+/g, ' ').trim();
  return line.length <= TITLE_MAX ? line : `${line.slice(0, TITLE_MAX - 1)}…`;
}

import type * as z from 'zod/mini';
import type { ConvergenceConfig, Verdict } from '../../machines/index.js';

export type { Verdict } from '../../machines/index.js';

/** A figure behind a verdict, as plain data (state --json, status.md). */
export type Figure = number | string | boolean | null;

/** What a policy says of its metrics so far: the verdict, a reason code, one line for people, and the figures behind it. */
export interface PolicyVerdict {
  verdict: Verdict;
  /** A stable snake_case code scripts can branch on (`questions_stable`, `score_dropped`). */
  reason: string;
  detail: string;
  figures: Record<string, Figure>;
}

/** One line of the CONVERGENCE CHECK tree (`check --verbose`), with the notes hung under it. */
export interface CheckLine {
  text: string;
  notes?: string[];
}

export interface CheckTree {
  iteration: number;
  lines: CheckLine[];
  /** `CONTINUE`, `STOP (why)`, or `INTERRUPT (why)` for atoms' redirect. */
  decision: string;
}

/** How `record <policy>` flags are declared: node:util parseArgs option shapes. */
export type FlagSpec =
  /**
   * `value`: the kind of number the flag takes (`amount`: any number of 0 or more), so the CLI names the flag when given anything else.
   * `placeholder`: what `--help` shows after the flag (`N`); `oneOf`: one of the flags so marked is
   * given, not all (`--help` shows them as alternatives).
   */
  { type: 'string'; multiple?: boolean; value?: 'whole' | 'number' | 'amount'; placeholder?: string; oneOf?: boolean } | { type: 'boolean' };
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** What the gap events made of a round, as the session folded them: the figures the gap rules judge. */
export interface GapRoundFigures {
  round: number;
  openCount: number;
  weightedNet: number;
  weightedResolved: number;
  weightedNew: number;
  criticalIntroduced: readonly string[];
}

/** The round being judged, as the session sees it: what a policy that reads gap events judges, under the session's thresholds. */
export interface RoundInput {
  gaps: GapRoundFigures;
  config: ConvergenceConfig;
  /** The machine's flat count after the round (a check tree shows it). */
  flatCount: number;
  /**
   * More rounds until the gaps close, as the forecast of the weighted open
   * count after this round puts it; null (or left out) when it has no
   * estimate or no policy reads gap events.
   */
  forecast?: { low: number; high: number } | null;
}

/**
 * A policy (R15): pure functions of its settings and the metrics it
 * recorded so far, one entry per iteration, oldest first. Everything a
 * session, the CLI and status.md need from a policy is here, so adding one is
 * one folder plus a line in the registry.
 */
export interface Policy<S, M> {
  name: string;
  /** One line for `--help` and the README. */
  summary: string;
  /** Raw settings (as stored in session.started) to resolved settings; presets resolve here. */
  settings: z.ZodMiniType<S>;
  /** One iteration's metrics payload. */
  metrics: z.ZodMiniType<M>;
  /** `--<policy>-<flag>` at init: flag suffix to settings key. */
  settingFlags: Readonly<Record<string, string>>;
  /** `record <policy>` flags and how they become a metrics payload (the schema judges it). */
  recordFlags: Readonly<Record<string, FlagSpec>>;
  fromFlags(values: FlagValues): Record<string, unknown>;
  /**
   * Requires at least one iteration. A policy that reads gap events judges
   * the closing round it is handed instead, and is handed one always.
   */
  verdict(settings: S, history: readonly M[], round?: RoundInput): PolicyVerdict;
  check(settings: S, history: readonly M[], round?: RoundInput): CheckTree;
  /** status.md columns: header, and the figure key it shows. */
  columns: readonly (readonly [header: string, figure: string])[];
  /** The session's stall threshold when this policy runs alone (atoms' max_stall_count). */
  soloStallThreshold?(settings: S): number;
  /**
   * The policy judges the gap events the session folds, not metrics it
   * records: its rounds are the session's, so the session's max_rounds
   * bounds them (R12), and status.md shows the gap inventory and round table.
   */
  readsGapEvents?: true;
  /**
   * A guard, not a goal (budget): its verdict counts in the round's
   * combination only when it is `limit` or `diverging`, so it neither holds
   * up convergence under `all` nor completes a session under `any`. A metric
   * policy's verdict is handed the round being judged (with its forecast).
   */
  guard?: true;
  /** Its record flags may also be given to `round close`: the record and the close are then appended together. */
  recordOnClose?: true;
  /** The agent's request to stop or redirect that its latest metrics carry, if any (the stop hook and `next` honour it). */
  agentRequest?(settings: S, history: readonly M[]): AgentRequest | undefined;
  /** How a session that runs this policy alone tells a round's step in its history, from the combined verdict's reason code. */
  narrate?(reason: string, step: { from: string; to: string }, round: RoundInput): string;
  /** A `record <policy>` flag whose value is a command the edge runs once (atoms' `--verify`). */
  recordCommand?: RecordCommand;
  /** Files an iteration leaves beside the log (quality's `scores.json`), for iteration `n` (1-based) of `history`. */
  reports?(settings: S, history: readonly M[], n: number): PolicyReport[];
  /** What is still in dispute after its latest metrics (forge: the concerns of the votes that did not agree, its remaining issues), each as one line. */
  remainingIssues?(settings: S, history: readonly M[]): string[];
  /** `state --format NAME` texts this policy offers (questions' `frontmatter`), from its metrics so far. */
  stateFormats?: Readonly<Record<string, (settings: S, history: readonly M[]) => string>>;
}

/** What the edge's run of a record command did; the metrics keep it, so replay never runs it again. */
export interface CommandRun {
  command: string;
  /** null when the command was killed (timeout or signal). */
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
}

/**
 * A record flag that carries a command: the edge runs it (only for a record
 * that will be appended) and hands the run to `withRun`; the policy says no
 * more than which flags carry it and where the run goes in its metrics.
 */
export interface RecordCommand {
  /** The flag carrying the command (`verify`). */
  flag: string;
  /** The flag carrying its time limit in seconds, and the limit without it. */
  timeoutFlag: string;
  defaultTimeoutSeconds: number;
  /** The metrics with the run in them (as raw as `fromFlags`' output: the schema judges them). */
  withRun(metrics: Record<string, unknown>, run: CommandRun): Record<string, unknown>;
}

/** A file a policy keeps beside the log: its path under the session folder and its whole content. */
export interface PolicyReport {
  path: string;
  content: string;
}

/** An agent's own request to end or redirect the loop (atoms' stop and redirect requests). */
export interface AgentRequest {
  kind: 'redirect' | 'stop';
  reason: string;
}

/**
 * A value built the first time it is asked for, then kept. A policy's
 * schemas are built this way (its `settings` and `metrics` are getters), so
 * a call pays for the schemas of the policies its session runs, not for
 * every policy in the registry.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/**
 * A policy without its schemas: its name and pure rules. Each policy's
 * rules live apart from its schemas (its folder's index.ts and schema.ts),
 * so `next` and a stop hook, which judge a session's policies but parse no
 * settings or metrics, read them without loading zod (rules.ts).
 */
export type PolicyRules<S, M> = Omit<Policy<S, M>, 'settings' | 'metrics'>;

/** A policy with its types erased, as the registry holds it: settings and metrics always come out of its own schemas. */
export type AnyPolicy = Policy<unknown, unknown>;

/** A policy's rules with their types erased (see `definePolicy` for why that is safe). */
export type AnyPolicyRules = PolicyRules<unknown, unknown>;

/** A policy's rules, checked against its settings and metrics types. */
export function policyRules<S, M>(rules: PolicyRules<S, M>): PolicyRules<S, M> {
  return rules;
}

/** A policy's rules as the registry of rules holds them: their types erased, as `definePolicy` erases a whole policy's. */
export function eraseRules<S, M>(rules: PolicyRules<S, M>): AnyPolicyRules {
  return rules as unknown as AnyPolicyRules;
}

/**
 * A whole policy: its rules with its schemas, each built when first asked
 * for. The one place a policy's types are erased. It is safe because every
 * settings and metrics value a session hands a policy's functions came out
 * of that policy's own `settings` and `metrics` schemas (the view keeps them
 * by policy name), so no caller ever needs to cast them back.
 */
export function definePolicy<S, M>(rules: PolicyRules<S, M>, schemas: { settings: () => z.ZodMiniType<S>; metrics: () => z.ZodMiniType<M> }): AnyPolicy {
  const policy: Policy<S, M> = {
    ...rules,
    get settings() {
      return schemas.settings();
    },
    get metrics() {
      return schemas.metrics();
    },
  };
  return policy as unknown as AnyPolicy;
}

// How a policy's words show a count (and the renderers too).

/** A net with its sign: `+6`, `0`, `-4` (status.md's round tables). */
export function signed(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : formatCount(n);
}

/** R9: one decimal only when the count is fractional (a deferred gap counts half). */
export function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

import fc from 'fast-check';
import { ALLOWED_MOVES } from '../../src/core/index.js';
import { DecisionKind as DecisionKindSchema } from '../../events/index.js';
import type { ConvergenceState, DecisionKind, GapState, Session, SessionSettings, SessionView, Severity } from '../../src/index.js';
import { FACTOR as SUPPORT_FACTOR, newSession, WEIGHT } from '../support.js';

/*
 * Random valid sessions for the property suite. A script is a list of random
 * numbers; each step is read against the session as it stands and turned into
 * a command R8-R11 say the session must accept, so almost every
 * script plays to its end and shrinks to a short one when a property fails.
 */

export const FACTOR: Readonly<Record<GapState, number>> = SUPPORT_FACTOR;
export const GAP_STATES = Object.keys(FACTOR) as GapState[];
export const SEVERITY_LIST = Object.keys(WEIGHT) as Severity[];
export const DECISIONS: readonly DecisionKind[] = DecisionKindSchema.options;

export const isClosed = (state: GapState) => FACTOR[state] === 0;

export type Command =
  | { t: 'open'; id: string; severity: Severity; spawnedBy?: string; blocking: boolean }
  | { t: 'move'; id: string; to: GapState; blockedBy?: string }
  | { t: 'severity'; id: string; to: Severity }
  | { t: 'start' }
  | { t: 'close' }
  | { t: 'decide'; kind: DecisionKind; gaps?: string[]; acceptCritical?: boolean; rationale?: string };

export function applyCommand(session: Session, cmd: Command): void {
  switch (cmd.t) {
    case 'open':
      session.openGap(cmd.id, cmd.severity, { spawnedBy: cmd.spawnedBy, blocking: cmd.blocking, title: `gap ${cmd.id}` });
      return;
    case 'move':
      session.moveGap(cmd.id, cmd.to, cmd.blockedBy ? { blockedBy: cmd.blockedBy, reason: `waits on ${cmd.blockedBy}` } : {});
      return;
    case 'severity':
      session.changeSeverity(cmd.id, cmd.to);
      return;
    case 'start':
      session.startRound();
      return;
    case 'close':
      session.closeRound();
      return;
    case 'decide':
      session.makeDecision(cmd.kind, { gaps: cmd.gaps, acceptCritical: cmd.acceptCritical, rationale: cmd.rationale });
      return;
  }
}

export interface ModelGap {
  severity: Severity;
  state: GapState;
}

/** The tester's own inventory: what the accepted commands should have left, kept apart from the view. */
export class Model {
  readonly gaps = new Map<string, ModelGap>();
  /** Gaps not closed when round 1 started (what `auto` sizes the session by, R13). */
  baselineGaps: number | null = null;
  #next = 1;

  newId(): string {
    return `G-${this.#next}`;
  }

  unfinished(severity?: Severity): string[] {
    return [...this.gaps].filter(([, g]) => !isClosed(g.state) && (!severity || g.severity === severity)).map(([id]) => id);
  }

  openIds(severity?: Severity): string[] {
    return [...this.gaps].filter(([, g]) => FACTOR[g.state] === 1 && (!severity || g.severity === severity)).map(([id]) => id);
  }

  /** Folds in a command the session accepted. */
  accepted(cmd: Command, roundsBefore: number): void {
    if (cmd.t === 'open') {
      this.gaps.set(cmd.id, { severity: cmd.severity, state: 'OPEN' });
      this.#next += 1;
    } else if (cmd.t === 'move') {
      this.gaps.get(cmd.id)!.state = cmd.to;
    } else if (cmd.t === 'severity') {
      this.gaps.get(cmd.id)!.severity = cmd.to;
    } else if (cmd.t === 'start' && roundsBefore === 0) {
      this.baselineGaps = this.unfinished().length;
    } else if (cmd.t === 'decide' && cmd.kind === 'narrow_scope') {
      for (const id of cmd.gaps ?? []) this.gaps.get(id)!.state = 'USER_DEFERRED';
    }
  }
}

/** One step of a script: random numbers the interpreter reads against the session as it stands. */
export interface Step {
  op: number;
  a: number;
  b: number;
  c: number;
  severity: Severity;
  flag: boolean;
}

export const stepArb: fc.Arbitrary<Step> = fc.record({
  op: fc.nat(99),
  a: fc.nat(),
  b: fc.nat(),
  c: fc.nat(),
  severity: fc.constantFrom(...SEVERITY_LIST),
  flag: fc.boolean(),
});

/** Small thresholds so flat rounds, stalls, divergence and the round limit all come up in short sessions. */
export const settingsArb: fc.Arbitrary<SessionSettings> = fc.record(
  {
    preset: fc.constantFrom('simple', 'complex', 'large', 'auto'),
    stallThreshold: fc.integer({ min: 1, max: 4 }),
    divergenceThreshold: fc.integer({ min: 0, max: 16 }),
    maxRounds: fc.integer({ min: 2, max: 8 }),
    criticalOverride: fc.boolean(),
  },
  { requiredKeys: [] },
);

export const scriptArb = (maxLength = 40) => fc.array(stepArb, { minLength: 8, maxLength, size: 'max' });

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

/** A non-empty subset of `ids` chosen by the bits of `mask`. */
function subset(ids: readonly string[], mask: number, fallback: number): string[] {
  const chosen = ids.filter((_, i) => (mask >> (i % 30)) & 1);
  return chosen.length > 0 ? chosen : [pick(ids, fallback)];
}

/** R11: the decisions that make sense now, split into those that end the session and the others. */
function decisions(view: SessionView, model: Model, s: Step): { going: Command[]; ending: Command[] } {
  const state = view.machine.state;
  if (view.roundOpen) {
    // Only pause and resume may interrupt a round.
    if (state === 'PAUSED') return { going: [{ t: 'decide', kind: 'resume' }], ending: [] };
    return { going: [{ t: 'decide', kind: 'pause' }], ending: [] };
  }
  const abandon: Command = { t: 'decide', kind: 'abandon' };
  switch (state) {
    case 'CONVERGING':
    case 'FLAT': {
      const critical = model.unfinished('CRITICAL').length > 0;
      const high = model.unfinished('HIGH').length > 0;
      const approve: Command = {
        t: 'decide',
        kind: 'approve',
        ...(critical || s.flag ? { acceptCritical: true } : {}),
        ...(high || s.flag ? { rationale: 'good enough for the pilot' } : {}),
      };
      return { going: [{ t: 'decide', kind: 'pause' }], ending: [abandon, approve] };
    }
    case 'DIVERGENCE_WARNING': {
      const going: Command[] = [
        { t: 'decide', kind: 'accept_complexity' },
        { t: 'decide', kind: 'pause' },
      ];
      const open = model.openIds();
      if (open.length > 0) going.push({ t: 'decide', kind: 'narrow_scope', gaps: subset(open, s.a, s.b) });
      const critical = model.openIds('CRITICAL');
      if (critical.length > 0) {
        going.push({ t: 'decide', kind: 'prioritize_critical', ...(s.flag ? {} : { gaps: subset(critical, s.a, s.b) }) });
      }
      return { going, ending: [abandon, { t: 'decide', kind: 'force_complete' }] };
    }
    case 'PAUSED':
      return { going: [{ t: 'decide', kind: 'resume' }], ending: [abandon] };
    default:
      return { going: [], ending: [] };
  }
}

/** Reads one step against the session: a command the rules say it must accept, or null when none is left (COMPLETE). */
export function nextCommand(view: SessionView, model: Model, s: Step): Command | null {
  const state = view.machine.state;
  const gapTime = state === 'CONVERGING' || state === 'FLAT';
  const ids = [...model.gaps.keys()];
  const options: [weight: number, make: () => Command][] = [];
  if (gapTime) {
    options.push([
      20,
      () => ({
        t: 'open',
        id: model.newId(),
        severity: s.severity,
        blocking: s.c % 2 === 0,
        ...(s.flag && ids.length > 0 ? { spawnedBy: pick(ids, s.b) } : {}),
      }),
    ]);
    // A withdrawal (R20) is not played here: the figures this model checks are R6's (gap-moves.test.ts covers R20).
    const moves = ids.flatMap((id) => ALLOWED_MOVES[model.gaps.get(id)!.state].filter((to) => to !== 'DUPLICATE').map((to) => ({ id, to })));
    if (moves.length > 0) {
      options.push([
        30,
        () => {
          const { id, to } = pick(moves, s.a);
          const others = ids.filter((other) => other !== id);
          return { t: 'move', id, to, ...(to === 'BLOCKED' && s.flag && others.length > 0 ? { blockedBy: pick(others, s.b) } : {}) };
        },
      ]);
    }
    const changes = ids
      .filter((id) => !isClosed(model.gaps.get(id)!.state))
      // R23: no severity goes back to UNTRIAGED.
      .flatMap((id) => SEVERITY_LIST.filter((to) => to !== model.gaps.get(id)!.severity && to !== 'UNTRIAGED').map((to) => ({ id, to })));
    if (changes.length > 0) options.push([6, () => ({ t: 'severity', ...pick(changes, s.a) })]);
    // Round 1 waits for a baseline, or most sessions would converge on an empty inventory at once.
    if (!view.roundOpen) options.push([view.rounds.length === 0 && ids.length < 3 ? 1 : 15, () => ({ t: 'start' })]);
  }
  if (view.roundOpen && state !== 'PAUSED') options.push([22, () => ({ t: 'close' })]);
  const { going, ending } = decisions(view, model, s);
  if (going.length + ending.length > 0) {
    // Ending the session is rarer than going on, so most sessions live long enough to see their rounds' verdicts.
    const list = ending.length > 0 && (going.length === 0 || s.c % 8 === 0) ? ending : going;
    options.push([gapTime ? 3 : 50, () => pick(list, s.b)]);
  }
  if (options.length === 0) return null;
  const total = options.reduce((sum, [w]) => sum + w, 0);
  let target = (s.op / 100) * total;
  for (const [weight, make] of options) {
    if (target < weight) return make();
    target -= weight;
  }
  return options.at(-1)![1]();
}

/** What every property run saw, for the suite's summary line. */
export const seen = { sessions: 0, events: 0, commands: 0, states: new Set<ConvergenceState>(), outcomes: new Set<string>() };

export interface Played {
  session: Session;
  model: Model;
}

/**
 * Plays a script from the start; `afterEach` runs after every accepted
 * command. A command the rules allow but the session refuses fails the run.
 */
export function play(settings: SessionSettings, script: readonly Step[], afterEach?: (played: Played, cmd: Command, step: Step) => void): Played {
  const played = { session: newSession(settings), model: new Model() };
  const { session, model } = played;
  for (const s of script) {
    const cmd = nextCommand(session.view, model, s);
    if (!cmd) break;
    const roundsBefore = session.view.rounds.length;
    applyCommand(session, cmd);
    model.accepted(cmd, roundsBefore);
    seen.commands += 1;
    afterEach?.(played, cmd, s);
  }
  return played;
}

/** Counts a finished run into the summary. */
export function tally({ session }: Played): void {
  seen.sessions += 1;
  seen.events += session.view.lastSeq;
  seen.states.add('CONVERGING');
  for (const entry of session.view.history) seen.states.add(entry.to);
  if (session.view.machine.outcome) seen.outcomes.add(session.view.machine.outcome);
}

const BAD_IDS = ['', '-G', 'a b', '__proto__', 'G/1', 'x'.repeat(129), '<b>', 'G\n1'];

/** R11 per state: the decisions the machine takes now (their payloads aside). */
function possibleDecisions(view: SessionView): DecisionKind[] {
  const state = view.machine.state;
  if (view.roundOpen) return state === 'PAUSED' ? ['resume'] : state === 'COMPLETE' ? [] : ['pause'];
  switch (state) {
    case 'CONVERGING':
    case 'FLAT':
      return ['pause', 'abandon', 'approve'];
    case 'DIVERGENCE_WARNING':
      return ['narrow_scope', 'accept_complexity', 'prioritize_critical', 'force_complete', 'pause', 'abandon'];
    case 'PAUSED':
      return ['resume', 'abandon'];
    default:
      return [];
  }
}

/**
 * Requests the session must refuse as it stands (R8-R11 and the event
 * schemas), picked with `a` for variety: unknown gaps, moves R10 does not
 * allow, decisions in the wrong state or with the wrong gaps, bad severities
 * and bodies that are not events at all.
 */
export function invalidCommands(view: SessionView, model: Model, a: number): unknown[] {
  const state = view.machine.state;
  const rounds = view.rounds.length;
  const ids = [...model.gaps.keys()];
  const bad: unknown[] = [
    null,
    42,
    'gap.opened',
    [],
    {},
    { type: 'gap.opened' },
    { type: 'gap.exploded', data: {} },
    { type: 'gap.opened', data: { id: 'Z-1', severity: 'LOW' }, seq: 7 },
    { type: 'gap.opened', data: { id: pick(BAD_IDS, a), severity: 'LOW' } },
    { type: 'gap.opened', data: { id: `X-${a % 5}`, severity: pick(['SEVERE', 'critcal', '', 3, null], a) } },
    { type: 'gap.opened', data: { id: `X-${a % 5}`, severity: 'LOW', title: 'two\nlines' } },
    { type: 'gap.opened', data: { id: `X-${a % 5}`, severity: 'LOW', extra: true } },
    { type: 'gap.opened', data: { id: `X-${a % 5}`, severity: 'LOW', spawnedBy: `NOPE-${a % 3}` } },
    { type: 'gap.moved', data: { id: `NOPE-${a % 7}`, to: pick(GAP_STATES, a) } },
    { type: 'gap.severity_changed', data: { id: `NOPE-${a % 7}`, to: pick(SEVERITY_LIST, a) } },
    { type: 'round.started', data: { round: pick([0, -1, 1.5, '2'], a) } },
    { type: 'round.started', data: { round: rounds + 2 + (a % 3) } },
    { type: 'round.closed', data: { round: view.roundOpen ? rounds + 1 + (a % 3) : (a % 5) + 1 } },
    { type: 'decision.made', data: { kind: 'celebrate' } },
    { type: 'decision.made', data: { kind: pick(['pause', 'abandon', 'narrow_scope', 'resume'], a), acknowledgment: 'critical_risk' } },
    { type: 'session.started', data: {} },
  ];
  for (const kind of DECISIONS.filter((k) => !possibleDecisions(view).includes(k))) {
    const gaps = kind === 'narrow_scope' ? model.openIds().slice(0, 1) : undefined;
    const extra = kind === 'approve' ? { acknowledgment: 'critical_risk', rationale: 'anyway' } : {};
    bad.push({ type: 'decision.made', data: { kind, ...(gaps?.length ? { gaps } : {}), ...extra } });
  }
  if (state !== 'CONVERGING' && state !== 'FLAT') {
    // No gap event and no round start in DIVERGENCE_WARNING, PAUSED or COMPLETE (R8).
    bad.push({ type: 'gap.opened', data: { id: model.newId(), severity: pick(SEVERITY_LIST, a) } });
    bad.push({ type: 'round.started', data: { round: rounds + 1 } });
  }
  if (view.roundOpen) bad.push({ type: 'round.started', data: { round: rounds + 1 } });
  if (!view.roundOpen || state === 'PAUSED') bad.push({ type: 'round.closed', data: { round: Math.max(1, rounds) } });
  if (ids.length > 0) {
    const id = pick(ids, a);
    const gap = model.gaps.get(id)!;
    const notAllowed = GAP_STATES.filter((to) => !ALLOWED_MOVES[gap.state].includes(to));
    bad.push(
      { type: 'gap.moved', data: { id, to: pick(notAllowed, a) } },
      { type: 'gap.moved', data: { id, to: gap.state } },
      { type: 'gap.moved', data: { id, to: 'DONE' } },
      { type: 'gap.moved', data: { id, to: 'BLOCKED', blockedBy: id } },
      { type: 'gap.moved', data: { id, to: 'BLOCKED', blockedBy: `NOPE-${a % 3}` } },
      { type: 'gap.moved', data: { id, to: 'RESOLVED', blockedBy: pick(ids, a + 1) } },
      { type: 'gap.severity_changed', data: { id, to: gap.severity } },
      { type: 'gap.severity_changed', data: { id, to: 'URGENT' } },
      { type: 'gap.opened', data: { id, severity: pick(SEVERITY_LIST, a) } },
    );
    const closed = ids.filter((other) => isClosed(model.gaps.get(other)!.state));
    if (closed.length > 0) {
      const other = model.gaps.get(pick(closed, a))!;
      bad.push({
        type: 'gap.severity_changed',
        data: {
          id: pick(closed, a),
          to: pick(
            SEVERITY_LIST.filter((s) => s !== other.severity),
            a,
          ),
        },
      });
    }
  }
  const possible = possibleDecisions(view);
  if (possible.includes('pause')) bad.push({ type: 'decision.made', data: { kind: 'pause', gaps: [pick(ids, a) ?? 'G-1'] } });
  if (possible.includes('narrow_scope')) {
    const notOpen = ids.filter((id) => FACTOR[model.gaps.get(id)!.state] !== 1);
    bad.push({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: [] } });
    bad.push({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: [`NOPE-${a % 3}`] } });
    if (notOpen.length > 0) bad.push({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: [pick(notOpen, a)] } });
    const open = model.openIds();
    if (open.length > 0) bad.push({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: [pick(open, a), pick(open, a)] } });
    bad.push({ type: 'decision.made', data: { kind: 'accept_complexity', gaps: [pick(ids, a) ?? 'G-1'] } });
    const notCritical = ids.filter((id) => model.gaps.get(id)!.severity !== 'CRITICAL' || FACTOR[model.gaps.get(id)!.state] !== 1);
    if (notCritical.length > 0) bad.push({ type: 'decision.made', data: { kind: 'prioritize_critical', gaps: [pick(notCritical, a)] } });
    if (model.openIds('CRITICAL').length === 0) bad.push({ type: 'decision.made', data: { kind: 'prioritize_critical' } });
  }
  if (possible.includes('approve')) {
    if (model.unfinished('CRITICAL').length > 0) bad.push({ type: 'decision.made', data: { kind: 'approve', rationale: 'no ack' } });
    if (model.unfinished('HIGH').length > 0) {
      bad.push({ type: 'decision.made', data: { kind: 'approve', acknowledgment: 'critical_risk', rationale: pick(['', '   '], a) } });
    }
    bad.push({ type: 'decision.made', data: { kind: 'approve', acknowledgment: 'critical_risk', rationale: 'r', gaps: [`NOPE-${a % 3}`] } });
  }
  return bad;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getMicrosteps, type AnyStateMachine, type AnyStateNode, type SnapshotFrom } from 'xstate';
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { convergence, leafOf, recordOf, snapshotOf, type ConvergenceConfig, type ConvergenceEvent, type RoundVerdict } from '../../machines/index.js';
import { createMemorySession, FileLog, openFileSession, type Session } from '../../src/index.js';
import { fold, machineEventOf, settle, toStateJson } from '../../src/core/index.js';
import { renderStatus } from '../../src/render/index.js';
import { runCli } from '../cli/helpers.js';
import { WEIGHT } from '../support.js';

const convergenceMachine = convergence();

/*
 * Model-based path tests. xstate/graph walks the convergence machine itself
 * with an alphabet of abstract events chosen to put every guard on both sides
 * of its threshold. Each path (to every state, and through every transition)
 * is then played for real: as gap, round and decision events recorded by a
 * live session (with a live actor beside it), then written to a JSONL log and
 * replayed the way `gapflow replay` reads it. The traversal, a reference
 * model of R1-R12 written here, the session, its actor and the
 * replay must all agree at every step; the run fails below 100% of states
 * or transitions covered, so a transition added later without a path fails.
 */

/** The divergence threshold D of every traversal; the stall threshold N varies by suite. */
const D = 8;
/** The traversal's round limit: a ROUND_CLOSED names round 1 (not the last) or this one (the last). */
const FAR = 99;

type GapBucket = 'up' | 'level' | 'levelReview' | 'atD' | 'belowD' | 'critical' | 'empty' | 'last';
type VerdictBucket = 'progress' | 'flat' | 'diverging' | 'converged' | 'stopRequested' | 'limit';
type Bucket = GapBucket | VerdictBucket;
type RoundClose = Extract<ConvergenceEvent, { type: 'ROUND_CLOSED' }>;

/** What a gap bucket's round is made of: its weighted net, the open count at its close, a CRITICAL introduced, the last round. */
interface GapFigures {
  weightedNet: number;
  openCount: number;
  critical: boolean;
  last: boolean;
}

/**
 * Gaps alone: weighted net above 0, at 0, at -D, below -D; CRITICAL; nothing
 * left; the last round. The player makes each round exactly so.
 */
const GAP_FIGURES: Record<GapBucket, GapFigures> = {
  up: { weightedNet: 1, openCount: 5, critical: false, last: false },
  level: { weightedNet: 0, openCount: 5, critical: false, last: false },
  // R25: a flat round that is a review, not work.
  levelReview: { weightedNet: 0, openCount: 5, critical: false, last: false },
  atD: { weightedNet: -D, openCount: 5, critical: false, last: false },
  belowD: { weightedNet: -D - 1, openCount: 5, critical: false, last: false },
  critical: { weightedNet: 0, openCount: 5, critical: true, last: false },
  empty: { weightedNet: 1, openCount: 0, critical: false, last: false },
  last: { weightedNet: 1, openCount: 5, critical: false, last: true },
};

/** The reference model of the gap rules (R12, R5, R2, then the net), restated here independent of the gap policy. */
function referenceGapVerdict(f: GapFigures, override: boolean): RoundVerdict {
  if (f.openCount === 0) return { verdict: 'converged', reason: 'nothing_left_open' };
  if (f.last) return { verdict: 'limit', reason: 'last_round' };
  if (override && f.critical) return { verdict: 'diverging', reason: 'critical_introduced' };
  if (f.weightedNet < -D) return { verdict: 'diverging', reason: 'weighted_net_below_divergence' };
  if (f.weightedNet > 0) return { verdict: 'progress', reason: 'weighted_net_positive' };
  return { verdict: 'flat', reason: 'no_weighted_progress' };
}

/** With policies: gaps kept level beside atoms, whose metrics give every verdict the combined verdict can be. */
const POLICY_VERDICTS: Record<VerdictBucket, RoundVerdict> = {
  progress: { verdict: 'progress', reason: 'dag_shrinking' },
  flat: { verdict: 'flat', reason: 'dag_stalled' },
  diverging: { verdict: 'diverging', reason: 'redirect_requested' },
  converged: { verdict: 'converged', reason: 'base_case' },
  stopRequested: { verdict: 'stopped', reason: 'stop_requested' },
  limit: { verdict: 'limit', reason: 'max_iterations' },
};

const GAP_BUCKETS = Object.keys(GAP_FIGURES) as GapBucket[];
const VERDICT_BUCKETS = Object.keys(POLICY_VERDICTS) as VerdictBucket[];

const DECISIONS: ConvergenceEvent[] = [
  { type: 'NARROW_SCOPE' },
  { type: 'ACCEPT_COMPLEXITY' },
  { type: 'PRIORITIZE_CRITICAL' },
  { type: 'PRIORITIZE' },
  { type: 'EXTEND_ROUNDS' },
  { type: 'PAUSE' },
  { type: 'RESUME' },
  { type: 'FORCE_COMPLETE' },
  { type: 'ABANDON' },
  { type: 'APPROVE', openCriticalOrHigh: 0 },
  { type: 'APPROVE', openCriticalOrHigh: 1 },
];

/** Gaps alone or with policies: a session is one or the other, so each has its own alphabet. */
type Mode = 'gaps' | 'policies';

/** Each abstract round close, by bucket: the machine hears the verdict; the last round is marked by its number. */
const BUCKET_OF = new Map<RoundClose, Bucket>();
function closeFor(bucket: Bucket, verdict: RoundVerdict): RoundClose {
  const event: RoundClose = {
    type: 'ROUND_CLOSED',
    round: bucket === 'last' ? FAR : 1,
    verdict,
    ...(bucket === 'levelReview' ? { kind: 'review' as const } : {}),
  };
  BUCKET_OF.set(event, bucket);
  return event;
}
const ALPHABETS: Record<Mode | 'gaps-no-override', ConvergenceEvent[]> = {
  gaps: [...GAP_BUCKETS.map((b) => closeFor(b, referenceGapVerdict(GAP_FIGURES[b], true))), ...DECISIONS],
  'gaps-no-override': [...GAP_BUCKETS.map((b) => closeFor(b, referenceGapVerdict(GAP_FIGURES[b], false))), ...DECISIONS],
  policies: [...VERDICT_BUCKETS.map((b) => closeFor(b, POLICY_VERDICTS[b])), ...DECISIONS],
};

function bucketOf(event: ConvergenceEvent): Bucket | null {
  if (event.type !== 'ROUND_CLOSED') return null;
  const found = BUCKET_OF.get(event);
  if (!found) throw new Error(`not an alphabet event: ${JSON.stringify(event)}`);
  return found;
}

function label(event: ConvergenceEvent): string {
  if (event.type === 'ROUND_CLOSED') return `ROUND_CLOSED(${bucketOf(event)})`;
  return event.type === 'APPROVE' ? `APPROVE(${event.openCriticalOrHigh ? 'severe open' : 'none severe'})` : event.type;
}

type Snap = SnapshotFrom<typeof convergenceMachine>;

interface Dynamic {
  state: string;
  flatCount: number;
  outcome: string | null;
  pausedFrom: string | null;
}

function dynamic(snapshot: Snap): Dynamic {
  return recordOf(snapshot);
}

const keyOf = (snapshot: Snap) => JSON.stringify(dynamic(snapshot));

// ---------------------------------------------------------------------------
// The reference model: R1, R4, R11 and R12 restated, independent of the machine (the verdicts above restate R2, R5, R12).

function expectedAfter(before: Dynamic, event: ConvergenceEvent, config: ConvergenceConfig): Dynamic {
  const to = (state: string, changes: Partial<Dynamic> = {}): Dynamic => ({ ...before, state, ...changes });
  const live = before.state === 'CONVERGING' || before.state === 'FLAT';
  switch (event.type) {
    case 'ROUND_CLOSED': {
      if (!live) return before;
      // R15: the round's one verdict decides, the same way for every policy; R12's round limit beats all but converged and stopped.
      const { verdict } = event.verdict;
      if (verdict === 'converged') return to('COMPLETE', { outcome: 'CONVERGED' });
      if (verdict === 'stopped') return to('COMPLETE', { outcome: 'STOPPED' });
      if (verdict === 'limit' || event.round >= config.maxRounds) return to('COMPLETE', { outcome: 'MAX_ROUNDS' });
      if (verdict === 'diverging') return to('DIVERGENCE_WARNING');
      if (verdict === 'progress') return to('CONVERGING', { flatCount: 0 });
      // R25: a flat round that is not work leaves the count and the state.
      if (event.kind !== undefined && event.kind !== 'work') return before;
      const flat = before.flatCount + 1; // R1: the Nth flat round stalls, and STALLED moves on (R4)
      return flat >= config.stallThreshold ? to('DIVERGENCE_WARNING', { flatCount: flat }) : to('FLAT', { flatCount: flat });
    }
    case 'NARROW_SCOPE':
    case 'ACCEPT_COMPLEXITY':
    case 'PRIORITIZE_CRITICAL':
      return before.state === 'DIVERGENCE_WARNING' ? to('CONVERGING', { flatCount: 0 }) : before;
    case 'PRIORITIZE':
      // R26: the answer to a warning, as prioritize critical is; a focus and nothing more while the loop runs.
      return before.state === 'DIVERGENCE_WARNING' ? to('CONVERGING', { flatCount: 0 }) : before;
    case 'EXTEND_ROUNDS':
      // R24: the limit is the session's, not the machine's.
      return before;
    case 'FORCE_COMPLETE':
      return before.state === 'DIVERGENCE_WARNING' ? to('COMPLETE', { outcome: 'STALL_EXIT' }) : before;
    case 'PAUSE':
      return live || before.state === 'DIVERGENCE_WARNING' ? to('PAUSED', { pausedFrom: before.state }) : before;
    case 'RESUME':
      return before.state === 'PAUSED' ? to(before.pausedFrom ?? 'CONVERGING', { pausedFrom: null }) : before;
    case 'ABANDON':
      // A pause's return point is kept only while PAUSED.
      return before.state === 'COMPLETE' ? before : to('COMPLETE', { outcome: 'ABANDONED', pausedFrom: null });
    case 'APPROVE':
      if (!live) return before;
      return to('COMPLETE', { outcome: event.openCriticalOrHigh === 0 ? 'GOOD_ENOUGH' : 'USER_APPROVED' });
  }
}

// ---------------------------------------------------------------------------
// Turning an abstract path into a real session.

type Need = 'critical' | 'severe' | 'none' | null;

/** What the decisions after a round (or at baseline) need of the CRITICAL and HIGH gaps. */
function needOf(decisions: ConvergenceEvent[]): Need {
  const critical = decisions.some((e) => e.type === 'PRIORITIZE_CRITICAL');
  const severe = critical || decisions.some((e) => e.type === 'APPROVE' && e.openCriticalOrHigh > 0);
  const none = decisions.some((e) => e.type === 'APPROVE' && e.openCriticalOrHigh === 0);
  if (none && severe) throw new Error('this path needs severe gaps open and none open with no round between');
  return critical ? 'critical' : severe ? 'severe' : none ? 'none' : null;
}

/**
 * Plays abstract events as the gap, round and decision events a mediator
 * would record. Each round's weighted net is made exactly the bucket's; gaps
 * opened or closed only to satisfy a later decision (a CRITICAL to
 * prioritize, a HIGH to approve over, none to approve cleanly) are offset
 * with LOW gaps so the net stays exact.
 */
class Player {
  readonly session: Session;
  #lowPool: string[] = [];
  #counter = 0;
  /** The atoms policy's pending count: down one for progress, the same for a stall. */
  #pending = 1000;

  constructor(
    readonly config: ConvergenceConfig,
    readonly mode: Mode,
    baselineNeed: Need,
    lows: number,
    atomsIterations: number,
  ) {
    let tick = 0;
    // With policies: gaps (kept level, so flat) beside atoms, whose verdict then decides the round.
    const policies =
      mode === 'policies'
        ? {
            policies: ['gaps', 'atoms'],
            completeWhen: 'any' as const,
            policySettings: { atoms: { maxStallCount: 1000, maxIterations: atomsIterations } },
          }
        : {};
    this.session = createMemorySession(
      { ...config, ...policies },
      { clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)), newId: () => `ev-${tick}`, inspect: () => {} },
    );
    for (let i = 0; i < lows; i++) this.#lowPool.push(this.#open('LOW'));
    if (baselineNeed === 'critical') this.#open('CRITICAL');
    if (baselineNeed === 'severe') this.#open('HIGH');
    // A policy's first iteration counts as progress whatever it says: play it first. From
    // CONVERGING, progress leaves the machine exactly as it started, so the path holds from there.
    if (mode === 'policies') this.#policyRound('progress', null);
  }

  #open(severity: keyof typeof WEIGHT): string {
    const id = `${severity[0]}-${++this.#counter}`;
    this.session.openGap(id, severity);
    return id;
  }

  #resolveLows(count: number): void {
    for (let i = 0; i < count; i++) {
      const id = this.#lowPool.shift();
      if (!id) throw new Error('the LOW pool ran dry; give the path more baseline gaps');
      this.session.moveGap(id, 'RESOLVED');
    }
  }

  #openLows(count: number): void {
    for (let i = 0; i < count; i++) this.#lowPool.push(this.#open('LOW'));
  }

  #unfinished(severity: 'CRITICAL' | 'HIGH') {
    return [...this.session.view.gaps.values()].filter(
      (g) => g.severity === severity && g.state !== 'RESOLVED' && g.state !== 'WONT_FIX' && g.state !== 'ACCEPTED',
    );
  }

  round(bucket: Bucket, next: Need): void {
    if (this.mode === 'policies') return this.#policyRound(bucket as VerdictBucket, next);
    const s = this.session;
    s.startRound(undefined, bucket === 'levelReview' ? 'review' : undefined);
    const criticalOpen = () => this.#unfinished('CRITICAL').some((g) => g.state !== 'USER_DEFERRED');
    switch (bucket) {
      case 'up':
      case 'last':
        this.#resolveLows(1);
        break;
      case 'level':
      case 'levelReview':
        break;
      case 'atD':
      case 'belowD':
        for (let i = 0; i < D / WEIGHT.MEDIUM; i++) this.#open('MEDIUM');
        if (bucket === 'belowD') this.#openLows(1);
        break;
      case 'critical': {
        const id = this.#open('CRITICAL');
        // A CRITICAL opened and closed in one round still warns (R5); keep it open if one is wanted next.
        if (next === 'critical' && !criticalOpen()) this.#resolveLows(WEIGHT.CRITICAL / WEIGHT.LOW);
        else s.moveGap(id, 'RESOLVED');
        break;
      }
      case 'empty':
        for (const gap of [...s.view.gaps.values()]) {
          if (gap.state === 'USER_DEFERRED') s.moveGap(gap.id, 'WONT_FIX');
          else if (gap.state !== 'RESOLVED' && gap.state !== 'WONT_FIX' && gap.state !== 'ACCEPTED') s.moveGap(gap.id, 'RESOLVED');
        }
        break;
    }
    if (bucket !== 'empty') this.#prepare(next, bucket, criticalOpen);
    s.closeRound();
  }

  /** A round of a session with policies: gap events only as later decisions need them (net 0), then the atoms metrics that give the verdict. */
  #policyRound(bucket: VerdictBucket, next: Need): void {
    const s = this.session;
    s.startRound();
    this.#prepare(next, bucket, () => this.#unfinished('CRITICAL').some((g) => g.state !== 'USER_DEFERRED'));
    if (bucket === 'progress') this.#pending -= 1;
    const metrics = {
      pending: bucket === 'converged' ? 0 : this.#pending,
      resolved: 0,
      stopRequested: bucket === 'stopRequested',
      redirectRequested: bucket === 'diverging',
    };
    s.record({ type: 'metrics.recorded', data: { policy: 'atoms', metrics } });
    s.closeRound();
  }

  #prepare(next: Need, bucket: Bucket, criticalOpen: () => boolean): void {
    if (next === 'critical' && !criticalOpen()) {
      if (this.config.criticalOverride && bucket !== 'critical') throw new Error(`a CRITICAL is wanted after a ${bucket} round, which may not open one`);
      this.#open('CRITICAL');
      this.#resolveLows(WEIGHT.CRITICAL / WEIGHT.LOW);
    }
    if (next === 'severe' && this.#unfinished('CRITICAL').length + this.#unfinished('HIGH').length === 0) {
      this.#open('HIGH');
      this.#resolveLows(WEIGHT.HIGH / WEIGHT.LOW);
    }
    if (next === 'none') {
      for (const gap of [...this.#unfinished('CRITICAL'), ...this.#unfinished('HIGH')]) {
        this.session.moveGap(gap.id, gap.state === 'USER_DEFERRED' ? 'WONT_FIX' : 'RESOLVED');
        this.#openLows(WEIGHT[gap.severity] / WEIGHT.LOW);
      }
    }
  }

  decide(event: ConvergenceEvent): void {
    const s = this.session;
    switch (event.type) {
      case 'NARROW_SCOPE':
        return void s.makeDecision('narrow_scope', { gaps: [this.#lowPool.shift()!] });
      case 'ACCEPT_COMPLEXITY':
        return void s.makeDecision('accept_complexity');
      case 'PRIORITIZE_CRITICAL':
        return void s.makeDecision('prioritize_critical');
      case 'PAUSE':
        return void s.makeDecision('pause');
      case 'RESUME':
        return void s.makeDecision('resume');
      case 'FORCE_COMPLETE':
        return void s.makeDecision('force_complete');
      case 'ABANDON':
        return void s.makeDecision('abandon');
      case 'APPROVE':
        return void s.makeDecision('approve', event.openCriticalOrHigh > 0 ? { acceptCritical: true, rationale: 'accepted for the test' } : {});
      case 'ROUND_CLOSED':
        throw new Error('round closes are played by round()');
      case 'PRIORITIZE':
        // Any open gap may be the focus (R26): the first LOW of the pool.
        return void s.makeDecision('prioritize', { gaps: [this.#lowPool[0]!] });
      case 'EXTEND_ROUNDS':
        return void s.makeDecision('extend_rounds', { rounds: 1 });
    }
  }
}

// ---------------------------------------------------------------------------
// Paths from the machine.

/** What a traversal runs under: N = 1 stalls from CONVERGING, N = 3 stays FLAT for a round, N = 2 is the default. */
interface Setting {
  mode: Mode;
  override: boolean;
  n: number;
}

interface PathCase {
  name: string;
  setting: Setting;
  events: ConvergenceEvent[];
  /** Where the traversal says the path ends. */
  end: Dynamic;
}

function traversalConfig({ override, n }: Setting): ConvergenceConfig {
  return { stallThreshold: n, divergenceThreshold: D, maxRounds: FAR, criticalOverride: override };
}

/** Paths to every reachable state, then one path through every (state, event) the machine accepts. */
function pathsFor(setting: Setting): { toStates: PathCase[]; throughTransitions: PathCase[] } {
  const alphabet = setting.mode === 'gaps' && !setting.override ? 'gaps-no-override' : setting.mode;
  const options = { events: ALPHABETS[alphabet], input: traversalConfig(setting) };
  const shortest = getShortestPaths(convergenceMachine, options);
  // A path's first step is the actor's own start (xstate.init), not one of ours.
  const eventsOf = (steps: { event: ConvergenceEvent | { type: 'xstate.init' } }[]) =>
    steps.map((s) => s.event).filter((e): e is ConvergenceEvent => e.type !== 'xstate.init');
  const byState = new Map(shortest.map((p) => [keyOf(p.state), eventsOf(p.steps)]));
  const toStates = shortest.map((p) => ({
    name: `to ${keyOf(p.state)}`,
    setting,
    events: eventsOf(p.steps),
    end: dynamic(p.state),
  }));
  const throughTransitions = adjacencyMapToArray(getAdjacencyMap(convergenceMachine, options))
    .filter(({ state, event }) => state.can(event))
    .map(({ state, event, nextState }) => ({
      name: `${keyOf(state)} --${label(event)}-->`,
      setting,
      events: [...byState.get(keyOf(state))!, event],
      end: dynamic(nextState),
    }));
  return { toStates, throughTransitions };
}

/** Every state node, nested ones included. */
function nodesOf(machine: AnyStateMachine): AnyStateNode[] {
  const all: AnyStateNode[] = [];
  const visit = (node: AnyStateNode) => {
    all.push(node);
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return all;
}

/** The states a session can be in: the leaves, each named as the log records it (history pseudo-states are not states). */
const LEAVES = nodesOf(convergenceMachine)
  .filter((n) => n.type === 'atomic' || n.type === 'final')
  .map((n) => n.key);

/** Every transition the machine defines, as `NODE|EVENT|branch`, read from its state nodes, nested ones included. */
function definedTransitions(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  for (const node of nodesOf(machine)) {
    for (const [event, branches] of node.transitions) branches.forEach((_, i) => ids.push(`${node.key}|${event}|${i}`));
    (node.always ?? []).forEach((_, i) => ids.push(`${node.key}|always|${i}`));
  }
  return ids;
}

const covered = { states: new Set<string>(), transitions: new Set<string>() };

/** Records which transition definitions the machine takes for this event, and every state it passes through. */
function noteCoverage(snapshot: Snap, event: ConvergenceEvent): void {
  const taken = convergenceMachine.getTransitionData(snapshot, event)[0];
  if (taken) {
    const source = taken.source.key;
    const index = taken.source.transitions.get(event.type)?.indexOf(taken) ?? -1;
    covered.transitions.add(`${source}|${event.type}|${index}`);
  }
  covered.states.add(leafOf(snapshot.value));
  for (const [next] of getMicrosteps(convergenceMachine, snapshot, event)) {
    const key = leafOf(next.value);
    covered.states.add(key);
    // A state left by an eventless step (STALLED): its one `always` branch was taken.
    const always = convergenceMachine.getStateNodeById(key).always ?? [];
    if (always.length > 1) throw new Error(`coverage of guarded always branches in ${key} is not written yet`);
    if (always.length === 1) covered.transitions.add(`${key}|always|0`);
  }
}

// ---------------------------------------------------------------------------
// Playing a path both ways.

const scratch = mkdtempSync(join(tmpdir(), 'gapflow-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let folder = 0;

function play(path: PathCase): void {
  // Split the path into rounds and the decisions after each (segment 0: before any round closes).
  const segments: ConvergenceEvent[][] = [[]];
  for (const event of path.events) {
    if (event.type === 'ROUND_CLOSED') segments.push([event]);
    else segments.at(-1)!.push(event);
  }
  const rounds = segments.length - 1;
  const endsAtLimit = path.events.some((e) => e.type === 'ROUND_CLOSED' && e.round === FAR);
  // Each extension (R24) raises the limit by one: a path that ends at the limit starts that much lower.
  const extensions = path.events.filter((e) => e.type === 'EXTEND_ROUNDS').length;
  if (endsAtLimit && rounds - extensions < 1) throw new Error(`${path.name} extends the limit past its own rounds`);
  const config = { ...traversalConfig(path.setting), maxRounds: endsAtLimit ? rounds - extensions : FAR };
  // A CRITICAL to prioritize after a round that may not open one (R5 would warn) must be open from the baseline.
  const laterCritical = segments.slice(1).some((segment) => needOf(segment.slice(1)) === 'critical');
  const baselineNeed = needOf(segments[0]!) ?? (laterCritical ? 'critical' : null);
  // Atoms reaches its iteration limit on the path's last round (its first iteration is played before the path).
  const atomsLimit = path.events.some((e) => e.type === 'ROUND_CLOSED' && e.verdict.reason === 'max_iterations') ? rounds + 1 : FAR;
  const player = new Player(config, path.setting.mode, baselineNeed, 2 + rounds * (WEIGHT.CRITICAL + WEIGHT.HIGH + 1), atomsLimit);

  let expected: Dynamic = { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null };
  let step = 0;
  const check = (event: ConvergenceEvent) => {
    step += 1;
    expected = expectedAfter(expected, event.type === 'ROUND_CLOSED' ? { ...event, round: event.round === FAR ? rounds : 1 } : event, config);
    const { state, flatCount, outcome, pausedFrom } = player.session.view.machine;
    expect({ state, flatCount, outcome, pausedFrom }, `step ${step} (${label(event)}) of ${path.name}`).toEqual(expected);
  };
  segments.forEach((segment, index) => {
    const first = index === 0 ? undefined : segment[0];
    const decisions = index === 0 ? segment : segment.slice(1);
    if (first) {
      player.round(bucketOf(first)!, needOf(decisions));
      check(first);
    }
    for (const decision of decisions) {
      player.decide(decision);
      check(decision);
    }
  });
  expect(expected, `the reference model and the traversal disagree at the end of ${path.name}`).toEqual(path.end);

  const live = player.session;
  const actor = live.actor!.getSnapshot();
  expect(dynamic(actor), 'the live actor').toEqual(path.end);
  expect(actor.context).toEqual({ stallThreshold: live.view.config.stallThreshold, flatCount: path.end.flatCount, outcome: path.end.outcome });

  // Coverage is what the session really sent the statechart, event by event.
  const events = live.log.read();
  fold(events, (view, event) => {
    const settled = settle(view, event);
    const machineEvent = settled && machineEventOf(settled);
    if (!machineEvent) return settled;
    noteCoverage(snapshotOf(view.machine, view.config), machineEvent);
    return settled;
  });

  // The same events as a JSONL log, replayed as `gapflow replay` reads it.
  const dir = join(scratch, `p${++folder}`);
  new FileLog(dir).create(events);
  const replayed = openFileSession(dir);
  expect(toStateJson(replayed.view)).toEqual(toStateJson(live.view));
  expect(renderStatus(replayed.view)).toBe(renderStatus(live.view));
  const cli = runCli(['replay', '--json', '--dir', dir], { cwd: scratch });
  expect(cli.code, cli.stderr).toBe(0);
  expect((JSON.parse(cli.stdout) as { state: unknown }).state).toEqual(toStateJson(live.view));
}

// ---------------------------------------------------------------------------

const settings: Setting[] = [
  { mode: 'gaps', override: true, n: 2 },
  { mode: 'gaps', override: false, n: 2 },
  { mode: 'gaps', override: true, n: 1 },
  { mode: 'gaps', override: true, n: 3 },
  { mode: 'policies', override: true, n: 2 },
  { mode: 'policies', override: true, n: 1 },
  { mode: 'policies', override: true, n: 3 },
];
const suites = settings.map((setting) => ({ ...setting, ...pathsFor(setting) }));

describe.each(suites)('paths of the convergence machine ($mode, critical_override $override, stall_threshold $n)', ({ toStates, throughTransitions }) => {
  it(`reach each of ${toStates.length} reachable states the same way live and replayed`, () => {
    for (const path of toStates) play(path);
  });

  it(`take each of ${throughTransitions.length} (state, event) steps the same way live and replayed`, () => {
    for (const path of throughTransitions) play(path);
  });
});

// Runs after the paths above (vitest keeps a file's order), so it counts what they played.
describe('coverage of the machine by the paths above', () => {
  it('is 100% of states and 100% of transitions', () => {
    const states = LEAVES;
    const transitions = definedTransitions(convergenceMachine);
    const missingStates = states.filter((s) => !covered.states.has(s));
    const missingTransitions = transitions.filter((t) => !covered.transitions.has(t));
    const paths = suites.reduce((n, s) => n + s.toStates.length + s.throughTransitions.length, 0);
    console.log(
      `paths: ${paths} played; states covered ${states.length - missingStates.length}/${states.length}, ` +
        `transitions covered ${transitions.length - missingTransitions.length}/${transitions.length}`,
    );
    expect(missingStates).toEqual([]);
    expect(missingTransitions).toEqual([]);
  });
});

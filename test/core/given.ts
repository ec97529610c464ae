import { expect } from 'vitest';
import { decide, evolve, initialView, Refusal, type GapflowEvent, type Remedy, type SessionView } from '../../src/index.js';
import { EVENT_VERSION, type BodyInputOf, type Decided, type EventBodyInput, type RoundOutcome, type SettledEvent, type Severity } from '../../events/index.js';
import { settle } from '../../src/core/index.js';
import { parseBody } from '../../src/session/index.js';

/*
 * Given/when/then for the Decider, the way every Decider test is written: `given` builds a view
 * the way the log would, by deciding each request and folding the events it
 * decides; `when` asks `decide` one more request; `then` compares the bodies
 * it decided, `thenRefuses` the refusal. Envelopes are stamped here: version
 * EVENT_VERSION, seq 1, 2, 3… and a fixed id and time, so two runs are equal.
 */

/** Every event is stamped at the same instant: the core never reads a clock. */
export const AT = '2026-01-12T09:00:00.000Z';

type Unstamped<E> = E extends unknown ? Omit<E, 'v' | 'seq' | 'id' | 'at'> : never;
/** A stored event without its envelope: what `fact` folds as is (an outcome may be missing, as in a version-2 line). */
export type StoredBody = Unstamped<GapflowEvent>;

/** An event in its envelope, as the log would store it at `seq`. */
export function stamp(body: StoredBody, seq: number): GapflowEvent {
  return { v: EVENT_VERSION, seq, id: `e${seq}`, at: AT, ...body } as GapflowEvent;
}

/** A fact folded without being decided: a hand-written or old line (the view sees it as replay would, through `settle`). */
export interface Fact {
  readonly fact: StoredBody;
}
export const fact = (body: StoredBody): Fact => ({ fact: body });

export type GivenItem = EventBodyInput | Fact;

/** What a test expects of an outcome: only the fields that matter to its rule. */
export interface OutcomeSpec {
  figures?: Partial<RoundOutcome['figures']>;
  machine?: Partial<RoundOutcome['machine']>;
  steps?: Partial<RoundOutcome['steps'][number]>[];
  rule?: string | null;
  combined?: Partial<NonNullable<RoundOutcome['combined']>> | null;
  /** A round close's kind when it was not work (R25). */
  kind?: RoundOutcome['kind'];
  /** An extension's round limit after it (R24). */
  maxRounds?: number;
}

/** A body `decide` should return; a round close or a decision names the outcome it should carry. */
export type Expected =
  | Exclude<EventBodyInput, { type: 'round.closed' | 'decision.made' }>
  | { type: 'round.closed'; data: BodyInputOf<'round.closed'>['data'] & { outcome: OutcomeSpec } }
  | { type: 'decision.made'; data: BodyInputOf<'decision.made'>['data'] & { outcome: OutcomeSpec } };

export interface When {
  /** What `decide` returned; fails the test if it refused. */
  decided(): Decided[];
  /** The refusal; fails the test if `decide` did not refuse. */
  refusal(): Refusal;
  then(expected: Expected[]): void;
  /** `remedy`: the code it must carry; null: it must carry none; left out: not checked. */
  thenRefuses(pattern: RegExp, remedy?: Remedy | null): void;
}

export interface Given {
  readonly view: SessionView;
  /** The stamped events that built the view, as the log would hold them. */
  readonly log: readonly GapflowEvent[];
  /** This history and more after it. */
  and(...items: GivenItem[]): Given;
  when(request: EventBodyInput): When;
}

function isFact(item: GivenItem): item is Fact {
  return 'fact' in item;
}

function build(view: SessionView, log: readonly GapflowEvent[], items: readonly GivenItem[]): Given {
  const events = [...log];
  let current = view;
  const fold = (body: StoredBody) => {
    const event = stamp(body, events.length + 1);
    events.push(event);
    const settled = settle(current, event);
    if (settled) current = evolve(current, settled);
  };
  items.forEach((item, i) => {
    if (isFact(item)) return fold(item.fact);
    let decided: Decided[];
    try {
      decided = decide(current, parseBody(item));
    } catch (error) {
      throw new Error(`given item ${i + 1} (${item.type}) was refused: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    decided.forEach(fold);
  });
  return {
    view: current,
    log: events,
    and: (...more) => build(current, events, more),
    when: (request) => whenDeciding(current, request),
  };
}

export function given(...items: GivenItem[]): Given {
  return build(initialView(), [], items);
}

function whenDeciding(view: SessionView, request: EventBodyInput): When {
  const decided = (): Decided[] => {
    try {
      return decide(view, parseBody(request));
    } catch (error) {
      if (error instanceof Refusal) expect.fail(`expected ${request.type} to be decided, but it was refused: ${error.message}`);
      throw error;
    }
  };
  const refusal = (): Refusal => {
    let facts: Decided[];
    try {
      facts = decide(view, parseBody(request));
    } catch (error) {
      if (error instanceof Refusal) return error;
      throw error;
    }
    return expect.fail(`expected ${request.type} to be refused, but it decided ${facts.map((f) => f.type).join(', ')}`);
  };
  return {
    decided,
    refusal,
    then(expected) {
      const actual = decided();
      expect(actual.map((body) => body.type)).toEqual(expected.map((body) => body.type));
      expected.forEach((want, i) => {
        const got = actual[i]!;
        const { outcome: gotOutcome, ...gotData } = got.data as Record<string, unknown>;
        const { outcome: wantOutcome, ...wantData } = want.data as Record<string, unknown>;
        // The body as the schema reads the expectation (defaults filled in), the outcome only where the test speaks.
        const asked = parseBody({ type: want.type, data: wantData });
        expect({ type: got.type, data: gotData }, `body ${i + 1} (${got.type})`).toEqual({ type: asked.type, data: asked.data });
        if (wantOutcome === undefined) expect(gotOutcome, `body ${i + 1} carries no outcome`).toBeUndefined();
        else expect(gotOutcome, `outcome of body ${i + 1} (${got.type})`).toMatchObject(wantOutcome as object);
      });
    },
    thenRefuses(pattern, remedy) {
      const refused = refusal();
      expect(refused.message).toMatch(pattern);
      if (remedy !== undefined) expect(refused.remedy).toBe(remedy ?? undefined);
    },
  };
}

/** The settled form of a stored event, for tests that fold by hand. */
export function settled(body: Decided, seq: number): SettledEvent {
  return stamp(body, seq) as SettledEvent;
}

/** Requests, spelled the way the rulings speak. */
export const start = (data: BodyInputOf<'session.started'>['data'] = {}): BodyInputOf<'session.started'> => ({ type: 'session.started', data });
export const open = (id: string, severity: Severity, extra: { spawnedBy?: string; blocking?: boolean } = {}): BodyInputOf<'gap.opened'> => ({
  type: 'gap.opened',
  data: { id, severity, ...extra },
});
export const move = (
  id: string,
  to: BodyInputOf<'gap.moved'>['data']['to'],
  extra: { blockedBy?: string; reason?: string; of?: string } = {},
): BodyInputOf<'gap.moved'> => ({
  type: 'gap.moved',
  data: { id, to, ...extra },
});
export const resolve = (id: string): BodyInputOf<'gap.moved'> => move(id, 'RESOLVED');
export const severity = (id: string, to: Severity): BodyInputOf<'gap.severity_changed'> => ({ type: 'gap.severity_changed', data: { id, to } });
export const startRound = (round: number): BodyInputOf<'round.started'> => ({ type: 'round.started', data: { round } });
export const closeRound = (round: number): BodyInputOf<'round.closed'> => ({ type: 'round.closed', data: { round } });
export const decision = (
  kind: BodyInputOf<'decision.made'>['data']['kind'],
  extra: Omit<BodyInputOf<'decision.made'>['data'], 'kind'> = {},
): BodyInputOf<'decision.made'> => ({
  type: 'decision.made',
  data: { kind, ...extra },
});
export const metrics = (policy: string, values: Record<string, unknown>, round?: number): BodyInputOf<'metrics.recorded'> => ({
  type: 'metrics.recorded',
  data: { policy, metrics: values, ...(round === undefined ? {} : { round }) },
});

/** One whole round: start it, play the requests, close it. */
export const round = (n: number, ...requests: EventBodyInput[]): EventBodyInput[] => [startRound(n), ...requests, closeRound(n)];

/** A round close as an older or hand-written version might have recorded it: COMPLETE/CONVERGED unless told. */
export function roundOutcome(over: Partial<RoundOutcome> = {}): RoundOutcome {
  return {
    figures: { openEnd: 0, weightedOpenEnd: 0, resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0, criticalIntroduced: [] },
    verdicts: [],
    combined: { verdict: 'converged', reason: 'nothing_left_open', policies: ['gaps'], detail: 'gaps: open count reached 0' },
    machine: { state: 'COMPLETE', flatCount: 0, outcome: 'CONVERGED', pausedFrom: null },
    steps: [{ from: 'CONVERGING', to: 'COMPLETE' }],
    ...over,
  };
}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { convergingAfterRoundOne, divergingAfterRoundOne, expectOneLineError, inRoundOne, runCli, Sandbox, type CliResult } from './helpers.js';

function withStdin(box: Sandbox, stdin: string, ...argv: string[]): CliResult {
  return runCli([...argv, '--dir', box.dir], { cwd: box.root, stdin });
}

const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

describe('gapflow append', () => {
  it('appends a batch in order and prints the seq each line was given', () => {
    inRoundOne(box);
    const before = box.logLines().length;
    const result = withStdin(
      box,
      jsonl(
        { type: 'gap.moved', data: { id: 'GAP-M1', to: 'RESOLVED' } },
        { type: 'gap.opened', data: { id: 'GAP-L1', severity: 'LOW', title: 'Typo' } },
        { type: 'round.closed', data: { round: 1 } },
      ),
      'append',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`line 1: seq ${before + 1} gap.moved GAP-M1`);
    expect(result.stdout).toContain(`line 2: seq ${before + 2} gap.opened GAP-L1`);
    expect(result.stdout).toContain(`line 3: seq ${before + 3} round.closed 1`);
    const state = box.stateJson();
    expect(state.round).toBe(1);
    // GAP-M1 (MEDIUM, 2) resolved, GAP-L1 (LOW, 1) new: weighted net +1.
    expect(state.rounds[0]).toMatchObject({ resolved: 1, new: 1, weightedNet: 2 - 1 });
  });

  it('a bad fifth line leaves the log byte-identical and names the line', () => {
    inRoundOne(box);
    const before = box.logBytes()!;
    const result = withStdin(
      box,
      jsonl(
        { type: 'gap.moved', data: { id: 'GAP-M1', to: 'IN_PROGRESS' } },
        { type: 'gap.moved', data: { id: 'GAP-M1', to: 'PROPOSED' } },
        { type: 'gap.opened', data: { id: 'GAP-N1', severity: 'LOW' } },
        { type: 'gap.moved', data: { id: 'GAP-N1', to: 'RESOLVED' } },
        { type: 'gap.moved', data: { id: 'GAP-N1', to: 'RESOLVED' } },
        { type: 'round.closed', data: { round: 1 } },
      ),
      'append',
    );
    expectOneLineError(result, 1, ['stdin line 5', 'GAP-N1', 'already RESOLVED']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it.each([
    ['a line that is not JSON', '{"type":"gap.opened",\n', 'not JSON'],
    ['an array', '[1,2]\n', 'not an object'],
    ['an unknown type', `${JSON.stringify({ type: 'gap.exploded', data: {} })}\n`, 'type'],
    ['an unknown field', `${JSON.stringify({ type: 'round.closed', data: { round: 1 }, seq: 9 })}\n`, 'seq'],
    ['a bad severity', `${JSON.stringify({ type: 'gap.opened', data: { id: 'X', severity: 'URGENT' } })}\n`, 'data.severity'],
    ['an empty id', `${JSON.stringify({ type: 'round.closed', data: { round: 1 }, id: '' })}\n`, 'id'],
  ])('refuses %s, naming the line, writing nothing', (_name, bad, mention) => {
    inRoundOne(box);
    const before = box.logBytes()!;
    const good = jsonl({ type: 'gap.moved', data: { id: 'GAP-M1', to: 'RESOLVED' } });
    const result = withStdin(box, `${good}\n${bad}`, 'append');
    expectOneLineError(result, 1, ['stdin line 3', mention]);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('keeps a given id as the event id; a gap event between rounds first starts the round, which gets its own id', () => {
    convergingAfterRoundOne(box);
    const result = withStdin(box, jsonl({ type: 'gap.opened', data: { id: 'GAP-X', severity: 'LOW' }, id: 'loop-7' }), 'append', '--json');
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { appended: { line: number; seq: number; id: string; roundStartedSeq: number | null }[] };
    const lines = box.logLines().map((l) => JSON.parse(l) as { seq: number; id: string; type: string });
    const last = lines.at(-1)!;
    const started = lines.at(-2)!;
    expect(last).toMatchObject({ id: 'loop-7', type: 'gap.opened' });
    expect(started.type).toBe('round.started');
    expect(started.id).not.toBe('loop-7');
    expect(out.appended).toEqual([{ line: 1, seq: last.seq, id: 'loop-7', type: 'gap.opened', roundStartedSeq: started.seq, alreadyRecorded: false }]);
  });

  it('refuses an id used twice in one batch', () => {
    inRoundOne(box);
    const before = box.logBytes()!;
    const result = withStdin(
      box,
      jsonl({ type: 'gap.moved', data: { id: 'GAP-M1', to: 'RESOLVED' }, id: 'same' }, { type: 'round.closed', data: { round: 1 }, id: 'same' }),
      'append',
    );
    expectOneLineError(result, 1, ['stdin line 2', 'same', 'line 1']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('--file reads the batch from a file and names it in errors', () => {
    inRoundOne(box);
    const file = join(box.root, 'batch.jsonl');
    writeFileSync(file, jsonl({ type: 'gap.moved', data: { id: 'GAP-NOPE', to: 'RESOLVED' } }));
    expectOneLineError(withStdin(box, '', 'append', '--file', 'batch.jsonl'), 1, ['batch.jsonl line 1', 'unknown gap GAP-NOPE']);
    writeFileSync(file, jsonl({ type: 'gap.moved', data: { id: 'GAP-M1', to: 'RESOLVED' } }));
    expect(withStdin(box, '', 'append', '--file', 'batch.jsonl').code).toBe(0);
    expect(box.stateJson().gaps.find((g) => g.id === 'GAP-M1')?.state).toBe('RESOLVED');
    expectOneLineError(withStdin(box, '', 'append', '--file', 'missing.jsonl'), 1, ['missing.jsonl', 'no such file']);
  });

  it('an event the session state refuses (a gap event in DIVERGENCE_WARNING) is refused whole', () => {
    divergingAfterRoundOne(box);
    const before = box.logBytes()!;
    const result = withStdin(
      box,
      jsonl(
        { type: 'decision.made', data: { kind: 'accept_complexity' } },
        { type: 'gap.opened', data: { id: 'G', severity: 'LOW' } },
        { type: 'decision.made', data: { kind: 'approve' } },
      ),
      'append',
    );
    expectOneLineError(result, 1, ['stdin line 3', 'approve']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });
});

describe('gapflow next', () => {
  it('--json: continue with the open gaps by severity and the round', () => {
    inRoundOne(box);
    const out = JSON.parse(withStdin(box, '', 'next', '--json').stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      action: 'continue',
      state: 'CONVERGING',
      round: 0,
      roundOpen: true,
      focus: [],
      openGaps: { CRITICAL: [], HIGH: ['GAP-H1'], MEDIUM: ['GAP-M1'], LOW: [] },
      prompt: null,
      stopRequest: null,
    });
  });

  it('--json: ask_user with the decision prompt in DIVERGENCE_WARNING', () => {
    divergingAfterRoundOne(box);
    const prompt = box.ok('prompt').stdout;
    const out = JSON.parse(withStdin(box, '', 'next', '--json').stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ action: 'ask_user', state: 'DIVERGENCE_WARNING', prompt });
    expect((out.openGaps as Record<string, string[]>).CRITICAL).toEqual(['GAP-C1']);
  });

  it('without --json: one line, action then reason', () => {
    convergingAfterRoundOne(box);
    expect(withStdin(box, '', 'next').stdout).toMatch(/^continue: CONVERGING: start round 2; 1 open\n$/);
  });
});

describe('gapflow append with the log protections of issue 4', () => {
  const batch = jsonl(
    { type: 'gap.moved', data: { id: 'GAP-M1', to: 'RESOLVED' }, id: 'loop-7.a' },
    { type: 'gap.opened', data: { id: 'GAP-L9', severity: 'LOW' }, id: 'loop-7.b' },
  );

  it('a retried batch (same ids) appends nothing the second time and shows the originals', () => {
    inRoundOne(box);
    const first = withStdin(box, batch, 'append');
    expect(first.code, first.stderr).toBe(0);
    const after = box.logBytes()!;
    const again = withStdin(box, batch, 'append');
    expect(again.code, again.stderr).toBe(0);
    expect(Buffer.compare(box.logBytes()!, after)).toBe(0);
    const seqOf = (out: string, line: number) => new RegExp(`line ${line}: seq (\\d+)`).exec(out)?.[1];
    expect(seqOf(again.stdout, 1)).toBe(seqOf(first.stdout, 1));
    expect(seqOf(again.stdout, 2)).toBe(seqOf(first.stdout, 2));
  });

  it('an id already in the log for another kind of event is refused, writing nothing', () => {
    inRoundOne(box);
    expect(withStdin(box, batch, 'append').code).toBe(0);
    const after = box.logBytes()!;
    const reused = jsonl({ type: 'gap.opened', data: { id: 'GAP-L10', severity: 'LOW' }, id: 'loop-7.a' });
    expectOneLineError(withStdin(box, reused, 'append'), 1, ['loop-7.a', 'gap.moved']);
    expect(Buffer.compare(box.logBytes()!, after)).toBe(0);
  });

  it('--expect-seq refuses the batch when the log has moved on, and takes it when it has not', () => {
    inRoundOne(box);
    const seq = box.logLines().length;
    const before = box.logBytes()!;
    expectOneLineError(withStdin(box, batch, 'append', '--expect-seq', String(seq - 1)), 1, ['moved on']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    expect(withStdin(box, batch, 'append', '--expect-seq', String(seq)).code).toBe(0);
  });
});

describe('gapflow record with the log protections of issue 4', () => {
  it('--event-id makes a retried record a no-op; --expect-seq refuses a stale one', () => {
    box.ok('init', '--policy', 'quality');
    const first = box.gf('record', 'quality', '--score', '70', '--event-id', 'q-1');
    expect(first.code, first.stderr).toBe(0);
    const after = box.logBytes()!;
    expect(box.gf('record', 'quality', '--score', '70', '--event-id', 'q-1').code).toBe(0);
    expect(Buffer.compare(box.logBytes()!, after)).toBe(0);
    expectOneLineError(box.gf('record', 'quality', '--score', '75', '--expect-seq', '1'), 1, ['moved on']);
    expect(Buffer.compare(box.logBytes()!, after)).toBe(0);
  });
});

describe('gapflow append and the quality report', () => {
  it('writes quality/v<N>/scores.json for quality metrics that arrive in a batch, as record does', () => {
    box.ok('init', '--policy', 'quality');
    const result = withStdin(
      box,
      jsonl(
        { type: 'metrics.recorded', data: { policy: 'quality', metrics: { score: 80 } } },
        { type: 'metrics.recorded', data: { policy: 'quality', metrics: { score: 86 } } },
      ),
      'append',
    );
    expect(result.code, result.stderr).toBe(0);
    for (const iteration of [1, 2]) {
      const report = JSON.parse(readFileSync(join(box.dir, 'quality', `v${iteration}`, 'scores.json'), 'utf8')) as { iteration: number; overall: number };
      expect(report.iteration).toBe(iteration);
      expect(report.overall).toBe(iteration === 1 ? 80 : 86);
    }
  });
});

describe('gapflow append: what counts as a retried batch', () => {
  it('a batch whose first line was recorded but whose next line has no id is new work: --expect-seq still holds', () => {
    inRoundOne(box);
    const seq = box.logLines().length;
    const first = { type: 'gap.opened', data: { id: 'G-1', severity: 'LOW' }, id: 'e1' };
    expect(withStdin(box, jsonl(first, { type: 'gap.opened', data: { id: 'G-2', severity: 'LOW' } }), 'append', '--expect-seq', String(seq)).code).toBe(0);
    const before = box.logBytes()!;
    const result = withStdin(box, jsonl(first, { type: 'gap.opened', data: { id: 'G-3', severity: 'LOW' } }), 'append', '--expect-seq', String(seq));
    expectOneLineError(result, 1, ['moved on']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a batch torn after its first lines, retried with every id: the recorded lines are skipped and the rest appended', () => {
    inRoundOne(box);
    const seq = box.logLines().length;
    const a = { type: 'gap.opened', data: { id: 'G-1', severity: 'LOW' }, id: 'b.1' };
    const b = { type: 'gap.opened', data: { id: 'G-2', severity: 'LOW' }, id: 'b.2' };
    expect(withStdin(box, jsonl(a), 'append', '--expect-seq', String(seq)).code).toBe(0);
    const retry = withStdin(box, jsonl(a, b), 'append', '--expect-seq', String(seq));
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain('line 1: seq');
    expect(retry.stdout).toContain('already recorded');
    expect(box.logLines().filter((l) => l.includes('"G-2"'))).toHaveLength(1);
  });

  it('a retried batch whose recorded lines no longer end the log (others appended since) is held to --expect-seq', () => {
    inRoundOne(box);
    const seq = box.logLines().length;
    const a = { type: 'gap.opened', data: { id: 'G-1', severity: 'LOW' }, id: 'c.1' };
    const b = { type: 'gap.opened', data: { id: 'G-2', severity: 'LOW' }, id: 'c.2' };
    expect(withStdin(box, jsonl(a), 'append', '--expect-seq', String(seq)).code).toBe(0);
    box.ok('gap', 'open', 'G-OTHER', '--severity', 'LOW');
    const before = box.logBytes()!;
    expectOneLineError(withStdin(box, jsonl(a, b), 'append', '--expect-seq', String(seq)), 1, ['moved on']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });
});

describe('gapflow append that starts a session', () => {
  it('makes the session from a batch that begins with session.started, in one new log', () => {
    const result = withStdin(
      box,
      jsonl(
        { type: 'session.started', data: { maxRounds: 7 }, id: 'start-1' },
        { type: 'gap.opened', data: { id: 'G-1', severity: 'HIGH', title: 'First' } },
        { type: 'gap.opened', data: { id: 'G-2', severity: 'low' } },
      ),
      'append',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('line 1: seq 1 session.started');
    const lines = box.logLines().map((line) => JSON.parse(line) as { seq: number; id: string; type: string; data: Record<string, unknown> });
    // Gaps opened before round 1 are the baseline: no round starts for them.
    expect(lines.map((l) => l.type)).toEqual(['session.started', 'gap.opened', 'gap.opened']);
    expect(lines[0]).toMatchObject({ seq: 1, id: 'start-1', data: { maxRounds: 7 } });
    // Written in the log's own spelling.
    expect(lines[2]!.data.severity).toBe('LOW');
    const state = box.stateJson();
    // HIGH (4) + LOW (1) open.
    expect(state).toMatchObject({ openGapCount: 2, weightedOpen: 4 + 1, config: { maxRounds: 7 } });
    expect(box.ok('verify').stdout).toMatch(/3 events/);
  });

  it('writes nothing when any line of it is refused, and leaves no half-made session', () => {
    const result = withStdin(
      box,
      jsonl(
        { type: 'session.started', data: {} },
        { type: 'gap.opened', data: { id: 'G-1', severity: 'HIGH' } },
        { type: 'gap.moved', data: { id: 'G-9', to: 'RESOLVED' } },
      ),
      'append',
    );
    expectOneLineError(result, 1, ['stdin line 3', 'G-9']);
    expect(existsSync(join(box.dir, 'events.jsonl'))).toBe(false);
    expect(runCli(['next', '--dir', box.dir], { cwd: box.root }).code).toBe(1);
  });

  it('sent again with its ids (a retry), appends nothing and shows what was recorded', () => {
    const batch = jsonl({ type: 'session.started', data: {}, id: 's-1' }, { type: 'gap.opened', data: { id: 'G-1', severity: 'HIGH' }, id: 'g-1' });
    expect(withStdin(box, batch, 'append').code).toBe(0);
    const first = box.logLines();
    const again = withStdin(box, batch, 'append');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('line 1: seq 1 session.started (already recorded; nothing appended)');
    expect(box.logLines()).toEqual(first);
  });

  it('is refused where a session lives already, as any second session.started is', () => {
    inRoundOne(box);
    const before = box.logLines();
    expectOneLineError(withStdin(box, jsonl({ type: 'session.started', data: {} }), 'append'), 1, ['stdin line 1']);
    expect(box.logLines()).toEqual(before);
  });
});

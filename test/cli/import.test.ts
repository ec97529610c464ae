import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOneLineError, runCli, Sandbox } from './helpers.js';

let box: Sandbox;

beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const jsonl = (...lines: object[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** A session recorded by hand over two days, in append's lines with their times. */
const RECORDED = [
  { type: 'session.started', data: { maxRounds: 6 }, at: '2025-06-01T08:00:00Z', id: 'imported-1' },
  { type: 'gap.opened', data: { id: 'GAP-A', severity: 'critical', title: 'Who owns retries' }, at: '2025-06-01T08:05:00Z' },
  { type: 'gap.opened', data: { id: 'GAP-B', severity: 'LOW' }, at: '2025-06-01T08:05:00Z' },
  { type: 'round.started', data: { round: 1 }, at: '2025-06-02T09:00:00Z' },
  { type: 'gap.moved', data: { id: 'GAP-A', to: 'RESOLVED' }, at: '2025-06-02T10:15:00.250+01:00' },
];

function importFile(text: string, ...argv: string[]) {
  writeFileSync(join(box.root, 'history.jsonl'), text);
  return box.gf('import', 'history.jsonl', ...argv);
}

function logTimes(): string[] {
  return box.logLines().map((line) => (JSON.parse(line) as { at: string }).at);
}

describe('gapflow import', () => {
  it('makes a new session from a file, every event at the time its line gives, and it reads back', () => {
    const result = importFile(jsonl(...RECORDED));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('imported 5 events');
    expect(logTimes()).toEqual([
      '2025-06-01T08:00:00.000Z',
      '2025-06-01T08:05:00.000Z',
      '2025-06-01T08:05:00.000Z',
      '2025-06-02T09:00:00.000Z',
      '2025-06-02T09:15:00.250Z',
    ]);
    // CRITICAL (16) resolved, LOW (1) left.
    expect(box.stateJson()).toMatchObject({ openGapCount: 1, weightedOpen: 1, config: { maxRounds: 6 } });
    expect(box.ok('verify').stdout).toMatch(/5 events/);
    // Later writes are stamped when they are appended, not at the imported times.
    const before = Date.now();
    box.ok('gap', 'open', 'GAP-C', '--severity', 'LOW');
    expect(Date.parse(logTimes().at(-1)!)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('reads standard input with -', () => {
    const result = runCli(['import', '-', '--dir', box.dir], { cwd: box.root, stdin: jsonl(...RECORDED.slice(0, 2)) });
    expect(result.code, result.stderr).toBe(0);
    expect(logTimes()).toEqual(['2025-06-01T08:00:00.000Z', '2025-06-01T08:05:00.000Z']);
  });

  it('--json prints the events and the state', () => {
    const result = importFile(jsonl(...RECORDED.slice(0, 3)), '--json');
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { events: { id: string; at: string }[]; state: { openGapCount: number } };
    expect(printed.events[0]).toMatchObject({ id: 'imported-1', at: '2025-06-01T08:00:00.000Z' });
    expect(printed.state.openGapCount).toBe(2);
  });

  it('refuses a time that goes backwards, naming the line and the value, and writes nothing', () => {
    const lines = RECORDED.map((l) => ({ ...l }));
    lines[3]!.at = '2025-06-01T08:04:59Z';
    expectOneLineError(importFile(jsonl(...lines)), 1, ['history.jsonl line 4', '2025-06-01T08:04:59Z', 'backwards']);
    expect(existsSync(box.logPath)).toBe(false);
  });

  it('refuses a time in the future and writes nothing', () => {
    const lines = RECORDED.map((l) => ({ ...l }));
    lines[4]!.at = new Date(Date.now() + 3_600_000).toISOString();
    expectOneLineError(importFile(jsonl(...lines)), 1, ['history.jsonl line 5', lines[4]!.at, 'future']);
    expect(existsSync(box.logPath)).toBe(false);
  });

  it('refuses a line without its time, and a line the rules refuse, writing nothing', () => {
    const { at: _dropped, ...untimed } = RECORDED[1]!;
    expectOneLineError(importFile(jsonl(RECORDED[0]!, untimed)), 1, ['history.jsonl line 2', '"at"']);
    const bad = { type: 'gap.moved', data: { id: 'GAP-Z', to: 'RESOLVED' }, at: '2025-06-03T00:00:00Z' };
    expectOneLineError(importFile(jsonl(...RECORDED, bad)), 1, ['history.jsonl line 6', 'GAP-Z']);
    expect(existsSync(box.logPath)).toBe(false);
  });

  it('refuses where a session lives already, leaving it as it was', () => {
    box.ok('init');
    const before = box.logBytes()!;
    expectOneLineError(importFile(jsonl(...RECORDED)), 1, ['already', box.dir]);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('makes the session where init would: .gapflow in the working folder, even with a session above it', () => {
    expect(runCli(['init'], { cwd: box.root }).code).toBe(0);
    const below = join(box.root, 'below');
    mkdirSync(below);
    writeFileSync(join(below, 'h.jsonl'), jsonl(...RECORDED.slice(0, 2)));
    const result = runCli(['import', 'h.jsonl'], { cwd: below });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(below, '.gapflow', 'events.jsonl'))).toBe(true);
  });

  it('keeps "at" a field append refuses: ordinary writes are stamped when appended', () => {
    box.ok('init');
    const result = runCli(['append', '--dir', box.dir], {
      cwd: box.root,
      stdin: jsonl({ type: 'gap.opened', data: { id: 'G-1', severity: 'LOW' }, at: '2025-01-01T00:00:00Z' }),
    });
    expectOneLineError(result, 1, ['stdin line 1', 'at']);
  });
});

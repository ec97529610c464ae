import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, MemoryLog, openFileSession, replay, Session, type Session as S } from '../../src/index.js';
import { EVENT_VERSION } from '../../events/index.js';
import { renderStatus, renderSummary } from '../../src/render/index.js';
import { toStateJson } from '../../src/core/index.js';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { bin: { gapflow: string } }).bin.gapflow);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A session that touches every kind of event and state: flat, stall, decisions, pause, completion. */
function play(s: S): void {
  for (let i = 1; i <= 6; i++) s.openGap(`G-${i}`, i <= 2 ? 'HIGH' : 'MEDIUM', { title: `gap ${i}` });
  s.startRound();
  s.moveGap('G-1', 'IN_PROGRESS');
  s.moveGap('G-1', 'PROPOSED');
  s.moveGap('G-1', 'ACCEPTED');
  s.openGap('G-7', 'LOW', { spawnedBy: 'G-1', blocking: false });
  s.closeRound();
  s.openGap('G-8', 'MEDIUM'); // starts round 2 on its own
  s.changeSeverity('G-3', 'HIGH');
  s.closeRound();
  s.startRound();
  s.moveGap('G-2', 'IN_PROGRESS');
  s.moveGap('G-2', 'BLOCKED', { blockedBy: 'G-3', reason: 'waits on G-3' });
  s.closeRound();
  s.makeDecision('pause');
  s.makeDecision('resume');
  s.makeDecision('narrow_scope', { gaps: ['G-7', 'G-8'] });
  s.startRound();
  s.openGap('C-1', 'CRITICAL');
  s.closeRound();
  s.makeDecision('prioritize_critical');
  s.startRound();
  s.moveGap('C-1', 'RESOLVED');
  s.moveGap('G-4', 'WONT_FIX');
  s.closeRound();
  s.makeDecision('approve', { acceptCritical: true, rationale: 'good enough for the pilot' });
}

/** A session that uses issue 15's gap moves: untriaged gaps and their triage, a duplicate, a split, renames (of an open gap and of a closed one). */
function playGapMoves(s: S): void {
  s.openGap('G-1', 'HIGH', { title: 'parser' });
  s.openGap('G-2', 'HIGH', { title: 'parser again' });
  s.openGap('G-3', 'UNTRIAGED', { title: 'retries' });
  s.openGap('G-4', 'MEDIUM', { spawnedBy: 'G-1' });
  s.startRound();
  s.moveGap('G-2', 'DUPLICATE', { of: 'G-1', reason: 'same parser bug' });
  s.changeSeverity('G-3', 'LOW');
  s.record({
    type: 'gap.split',
    data: {
      id: 'G-1',
      into: [
        { id: 'G-1.1', severity: 'HIGH' },
        { id: 'G-1.2', severity: 'UNTRIAGED', title: 'parser errors' },
      ],
    },
  });
  s.closeRound();
  s.record({ type: 'gap.renamed', data: { id: 'G-1.1', newId: 'PARSE-1' } });
  s.record({ type: 'gap.renamed', data: { id: 'G-2', newId: 'PARSE-DUP' } });
  s.startRound();
  s.moveGap('G-4', 'IN_PROGRESS');
  s.moveGap('G-4', 'BLOCKED', { blockedBy: 'PARSE-1' });
  s.moveGap('G-3', 'RESOLVED');
  s.closeRound();
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-replay-'));
  dirs.push(dir);
  return dir;
}

describe('replay', () => {
  it('rebuilds exactly the state and status.md of the live session that wrote the log', () => {
    const dir = tempDir();
    const live = createFileSession(dir);
    play(live);
    expect(live.view.machine.state).toBe('COMPLETE');
    const replayed = openFileSession(dir);
    expect(toStateJson(replayed.view)).toEqual(toStateJson(live.view));
    expect(renderStatus(replayed.view)).toBe(renderStatus(live.view));
    expect(renderSummary(replayed.view)).toBe(renderSummary(live.view));
  });

  it('the CLI reads the same log to the same state --json and status.md', () => {
    const dir = tempDir();
    const live = createFileSession(dir);
    play(live);
    const cli = (...args: string[]) => execFileSync(process.execPath, [bin, ...args, '--dir', dir], { encoding: 'utf8' });
    expect(JSON.parse(cli('state', '--json'))).toEqual(JSON.parse(JSON.stringify(toStateJson(live.view))));
    expect(cli('status')).toBe(renderStatus(live.view));
    expect(cli('replay')).toContain(`Replayed ${live.view.lastSeq} events: COMPLETE (USER_APPROVED)`);
  });

  it('replays the same events in memory to the same view, every time', () => {
    const live = Session.create(new MemoryLog());
    play(live);
    const events = live.log.read();
    expect(replay(events)).toEqual(live.view);
    expect(renderStatus(Session.open(new MemoryLog(events)).view)).toBe(renderStatus(live.view));
  });

  it('every prefix of the log replays to the view the live session had at that point', () => {
    const live = Session.create(new MemoryLog());
    const views = [live.view];
    const original = live.record.bind(live);
    live.record = (input) => {
      const events = original(input);
      views.push(live.view);
      return events;
    };
    play(live);
    const events = live.log.read();
    let seen = 1;
    for (let n = 1; n <= events.length; n++) {
      const view = replay(events.slice(0, n));
      if (views[seen]!.lastSeq === n) {
        expect(view).toEqual(views[seen]);
        seen += 1;
      }
    }
    expect(seen).toBe(views.length);
  });

  it('a session that splits, withdraws, renames and triages replays to the same state, status.md and views at every step', () => {
    const dir = tempDir();
    const fresh = createFileSession(dir);
    playGapMoves(fresh);
    const replayed = openFileSession(dir);
    expect(toStateJson(replayed.view)).toEqual(toStateJson(fresh.view));
    expect(renderStatus(replayed.view)).toBe(renderStatus(fresh.view));
    const memory = Session.create(new MemoryLog());
    const views = [memory.view];
    const original = memory.record.bind(memory);
    memory.record = (input) => {
      const events = original(input);
      views.push(memory.view);
      return events;
    };
    playGapMoves(memory);
    const events = memory.log.read();
    expect(replay(events)).toEqual(memory.view);
    for (const view of views.slice(1)) expect(replay(events.slice(0, view.lastSeq))).toEqual(view);
    expect(memory.view.rounds.map((r) => r.withdrawn)).toEqual([1, 0]);
  });

  it('the log is one JSON event a line with v, seq, id, at, type, data and its checksum', () => {
    const dir = tempDir();
    play(createFileSession(dir));
    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').trimEnd().split('\n');
    lines.forEach((line, index) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(event)).toEqual(['v', 'seq', 'id', 'at', 'type', 'data', 'sum']);
      expect(event.v).toBe(EVENT_VERSION);
      expect(event.seq).toBe(index + 1);
      expect(new Date(String(event.at)).toISOString()).toBe(event.at);
    });
  });
});

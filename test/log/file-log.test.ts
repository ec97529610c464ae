import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, FileLog, LogError, MemoryLog, openFileSession, Session } from '../../src/index.js';
import { EVENT_VERSION } from '../../events/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-log-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('FileLog', () => {
  it('a session whose log another writer moved on catches up under the lock, so seq stays contiguous', () => {
    const dir = tempDir();
    createFileSession(dir).openGap('A', 'HIGH');
    const first = openFileSession(dir);
    const second = openFileSession(dir);
    first.openGap('B', 'LOW');
    const [event] = second.openGap('C', 'LOW').events;
    expect(event!.seq).toBe(4);
    expect([...second.view.gaps.keys()]).toEqual(['A', 'B', 'C']);
    expect(openFileSession(dir).view.lastSeq).toBe(4);
  });

  it('with an expected seq, a log that moved on is refused and nothing is written', () => {
    const dir = tempDir();
    createFileSession(dir).openGap('A', 'HIGH');
    const first = openFileSession(dir);
    const second = openFileSession(dir);
    first.openGap('B', 'LOW', {}, { expectSeq: 2 });
    const before = readFileSync(join(dir, 'events.jsonl'));
    expect(() => second.openGap('C', 'LOW', {}, { expectSeq: 2 })).toThrow(/end at seq 2, but it ends at seq 3/);
    expect(readFileSync(join(dir, 'events.jsonl'))).toEqual(before);
  });

  it('reports a last line without its newline as a torn tail to repair, and appends nothing after it', () => {
    const dir = tempDir();
    const session = createFileSession(dir);
    appendFileSync(join(dir, 'events.jsonl'), '{"v":2,"seq":2');
    const before = readFileSync(join(dir, 'events.jsonl'));
    expect(() => openFileSession(dir)).toThrow(/line 2: the line has no newline at its end.*gapflow repair/);
    expect(() => session.openGap('A', 'LOW')).toThrow(/line 2: .*torn.*nothing was written/);
    expect(readFileSync(join(dir, 'events.jsonl'))).toEqual(before);
  });

  it('refuses a newer event version, naming the version needed', () => {
    const dir = tempDir();
    createFileSession(dir);
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace(`"v":${EVENT_VERSION}`, `"v":${EVENT_VERSION + 1}`));
    const newer = EVENT_VERSION + 1;
    expect(() => openFileSession(dir)).toThrow(
      new RegExp(
        `line 1: event version ${newer} was written by a newer gapflow; this one reads versions 1 to ${EVENT_VERSION}: install a gapflow that reads version ${newer}`,
      ),
    );
  });

  it('creating a session where one exists is refused', () => {
    const dir = tempDir();
    createFileSession(dir);
    expect(() => createFileSession(dir)).toThrow(/already/);
    expect(new FileLog(dir).read()).toHaveLength(1);
  });

  it('a raw append must continue the seq', () => {
    const dir = tempDir();
    const [started] = createFileSession(dir).log.read();
    expect(() => new FileLog(dir).append([{ ...started!, seq: 3, id: 'x' }], 1)).toThrow(LogError);
    expect(new FileLog(dir).read()).toHaveLength(1);
  });
});

describe('MemoryLog', () => {
  it('refuses to create over a session it holds, and hands out copies', () => {
    const log = new MemoryLog();
    const session = Session.create(log);
    session.openGap('A', 'HIGH');
    expect(() => Session.create(log)).toThrow(/already holds a session/);
    const events = log.read();
    events.pop();
    expect(log.read()).toHaveLength(2);
    expect(Session.open(new MemoryLog(log.read())).view.gaps.has('A')).toBe(true);
  });
});

import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, FileLog, LogError, MemoryLog, openFileSession, Session } from '../../src/index.js';

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
  it('refuses to append to a log another writer has moved on, writing nothing', () => {
    const dir = tempDir();
    createFileSession(dir).openGap('A', 'HIGH');
    const first = openFileSession(dir);
    const second = openFileSession(dir);
    first.openGap('B', 'LOW');
    const before = readFileSync(join(dir, 'events.jsonl'));
    expect(() => second.openGap('C', 'LOW')).toThrow(LogError);
    expect(() => second.openGap('C', 'LOW')).toThrow(/changed while this call ran/);
    expect(readFileSync(join(dir, 'events.jsonl'))).toEqual(before);
    expect([...openFileSession(dir).view.gaps.keys()]).toEqual(['A', 'B']);
  });

  it('reports a last line without its newline as incomplete', () => {
    const dir = tempDir();
    createFileSession(dir);
    appendFileSync(join(dir, 'events.jsonl'), '{"v":1,"seq":2');
    expect(() => openFileSession(dir)).toThrow(/line 2: the last line is incomplete/);
  });

  it('refuses a newer event version, saying which it reads', () => {
    const dir = tempDir();
    createFileSession(dir);
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"v":1', '"v":2'));
    expect(() => openFileSession(dir)).toThrow(/line 1: event version 2 is not supported \(this gapflow reads version 1\)/);
  });

  it('creating a session where one exists is refused', () => {
    const dir = tempDir();
    createFileSession(dir);
    expect(() => createFileSession(dir)).toThrow(/already/);
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

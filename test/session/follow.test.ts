import { describe, expect, it, vi } from 'vitest';
import { createFileSession, openFileSession, type SessionUpdate } from '../../src/index.js';
import { tempDirs } from '../support.js';

const tempDir = tempDirs('gapflow-session-follow-');

describe('Session.follow', () => {
  it("keeps the view up with another process's writes, telling subscribers the events and the state changes", { timeout: 10_000 }, async () => {
    const dir = tempDir();
    const writer = createFileSession(dir);
    writer.openGap('A', 'HIGH');
    writer.openGap('B', 'MEDIUM');
    const watcher = openFileSession(dir);
    const updates: SessionUpdate[] = [];
    watcher.subscribe((update) => updates.push(update));
    const stop = watcher.follow();
    try {
      writer.startRound();
      writer.openGap('C', 'CRITICAL', { title: 'schema' });
      writer.closeRound();
      await vi.waitFor(() => expect(watcher.view.lastSeq).toBe(writer.view.lastSeq), { timeout: 2_000, interval: 5 });
      expect(watcher.view.machine.state).toBe('DIVERGENCE_WARNING');
      expect(watcher.view.gaps.get('C')).toMatchObject({ severity: 'CRITICAL', title: 'schema' });
      const heard = updates.flatMap((u) => u.events.map((e) => e.type));
      expect(heard).toEqual(['round.started', 'gap.opened', 'round.closed']);
      expect(updates.flatMap((u) => u.changes)).toEqual([expect.objectContaining({ from: 'CONVERGING', to: 'DIVERGENCE_WARNING', cause: 'round' })]);
    } finally {
      stop();
    }
  });

  it('does not hear its own writes twice', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    createFileSession(dir);
    const session = openFileSession(dir);
    const seqs: number[] = [];
    session.subscribe((update) => seqs.push(...update.events.map((e) => e.seq)));
    const stop = session.follow({ intervalMs: 20 });
    try {
      session.openGap('A', 'LOW');
      openFileSession(dir).openGap('B', 'LOW');
      await vi.waitFor(() => expect(session.view.lastSeq).toBe(3), { timeout: 2_000, interval: 5 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seqs).toEqual([2, 3]);
      expect([...session.view.gaps.keys()]).toEqual(['A', 'B']);
    } finally {
      stop();
    }
  });
});

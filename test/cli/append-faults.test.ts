import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bin, linesOf, type Faults } from './bin-faults.js';
import { Sandbox } from './helpers.js';

/*
 * The JSONL log after a write that did not become durable (an fsync that
 * fails, test/fault-fs.mjs): cut back to where it ended, the write is
 * surely not there, so the call is exit 1 with the log as it was; when even
 * the cut back fails, whether the event is in the log is not known: exit 4,
 * one line naming the --event-id that makes a retry safe, and that retry
 * leaves the event in the log once. A `gap` write is decided on the head
 * checkpoint, with no config.json beside the log or with one (even one that
 * asks for nothing, which the command reads after the write): both answer so.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

interface Event {
  id: string;
  type: string;
  data: { id?: string };
}

const events = () => box.logLines().map((line) => JSON.parse(line) as Event);
const gapOpens = (gap: string) => events().filter((event) => event.type === 'gap.opened' && event.data.id === gap);

/** Where the faults the bin met are traced (outside the session folder). */
const tracePath = () => join(box.root, 'faults.jsonl');
/** Whether the bin met a fault at all (a test that injected none would prove nothing). */
function metAFault(): boolean {
  return linesOf(readFileSync(tracePath(), 'utf8')).length > 0;
}

const PATHS = [
  { name: 'a session folder with no config.json', config: null },
  { name: 'a session folder with a config.json that asks for nothing', config: '{"writeStatus": false}\n' },
] as const;

describe.each(PATHS)('gap open in $name, when fsync of the log fails', ({ config }) => {
  const GAP_OPEN = ['gap', 'open', 'GAP-B', '--severity', 'HIGH'];

  beforeEach(() => {
    box.ok('init');
    // Through the bin, so the head checkpoint the write decides on is written as a user's call writes it.
    expect(bin(['gap', 'open', 'GAP-A', '--severity', 'HIGH', '--dir', box.dir], box.root).code).toBe(0);
    if (config !== null) writeFileSync(join(box.dir, 'config.json'), config);
    expect(existsSync(join(box.dir, 'checkpoint.head.json'))).toBe(true);
  });

  const faults = (more: Faults): Faults => ({ log: box.logPath, fsync: true, trace: tracePath(), ...more });

  it('and the log can be cut back: exit 1, one line, the log byte for byte as before', { timeout: 60_000 }, () => {
    const before = box.logBytes()!;
    const result = bin([...GAP_OPEN, '--dir', box.dir], box.root, faults({}));
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(/^gapflow: .*EIO/);
    expect(Buffer.compare(box.logBytes()!, before), 'events.jsonl changed').toBe(0);
    expect(metAFault()).toBe(true);
    expect(bin(['verify', '--dir', box.dir], box.root).code).toBe(0);
  });

  it('and the cut back fails too: exit 4, one line naming the --event-id of a safe retry; that retry leaves the event in the log once', {
    timeout: 60_000,
  }, () => {
    const result = bin([...GAP_OPEN, '--dir', box.dir], box.root, faults({ ftruncate: true }));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(/^gapflow: outcome unknown: /);
    // The ids gapflow makes are letters, digits, _ and -; the line goes on after the id.
    const id = /--event-id ([A-Za-z0-9_-]+)/.exec(result.stderr)?.[1];
    expect(id, result.stderr).toBeDefined();
    // This fault lets the write through and only its durability fails: the event named is the one in the log.
    expect(events().at(-1)).toMatchObject({ id, type: 'gap.opened', data: { id: 'GAP-B' } });
    expect(metAFault()).toBe(true);

    const retry = bin([...GAP_OPEN, '--event-id', id!, '--dir', box.dir], box.root);
    expect(retry.code, retry.stderr).toBe(0);
    expect(events().filter((event) => event.id === id)).toHaveLength(1);
    expect(gapOpens('GAP-B')).toHaveLength(1);
    expect(bin(['verify', '--dir', box.dir], box.root).code).toBe(0);
  });
});

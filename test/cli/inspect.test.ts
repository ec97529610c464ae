import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { divergingAfterRoundOne, Sandbox } from './helpers.js';
import type { StateValue } from 'xstate';
import { leafOf } from '../../machines/index.js';
import { alive, childKeeper, freePort, plainGet, until } from './children.js';

/*
 * `gapflow inspect` as a user runs it: the built bin in its own process, a
 * real WebSocket client, then Ctrl-C (SIGINT).
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const spawnBin = childKeeper();
const start = (...argv: string[]) => spawnBin([...argv, '--dir', box.dir], box.root);

interface Inspection {
  type: string;
  definition?: string;
  event?: { type: string };
  snapshot?: { value?: unknown; context?: { flatCount?: number } };
}

/** A WebSocket client of the relay that keeps what it is sent, and the HTTP status if its handshake was refused. */
function viewer(port: number, options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}`, options);
  const received: Inspection[] = [];
  let refused: number | null = null;
  let opened = false;
  socket.on('open', () => (opened = true));
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Inspection));
  socket.on('unexpected-response', (_req, res) => {
    refused = res.statusCode ?? 0;
    socket.terminate();
  });
  socket.on('error', () => undefined);
  return {
    socket,
    received,
    refused: () => refused,
    opened: () => opened,
    /** The types of the events the actor was sent, in order. */
    events: () => received.filter((m) => m.type === '@xstate.event').map((m) => m.event?.type),
  };
}

describe('gapflow inspect', () => {
  it("sends the machine's definition, every event and snapshot of a replayed session to a WebSocket client, then stops on Ctrl-C", async () => {
    divergingAfterRoundOne(box);
    box.ok('decide', 'pause');
    const port = await freePort();
    const run = start('inspect', '--port', String(port));
    await until('the ready message', () => run.stdout().includes('Ctrl-C'));
    expect(run.stdout()).toContain(`http://127.0.0.1:${port}`);

    const page = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
    expect(page).toContain('https://stately.ai/inspect');

    const received: Inspection[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    client.on('message', (data) => received.push(JSON.parse(String(data)) as Inspection));
    // The session sent the actor a round close and a pause: init + 2 events, each with its snapshot.
    const snapshots = () => received.filter((m) => m.type === '@xstate.snapshot');
    await until('three snapshots', () => snapshots().length >= 3);
    client.close();

    const actor = received.find((m) => m.type === '@xstate.actor');
    expect(actor?.definition).toBeDefined();
    const definition = JSON.parse(actor!.definition!) as { id: string; states: Record<string, unknown> };
    expect(definition.id).toBe('convergence');
    expect(Object.keys(definition.states).sort()).toEqual(['COMPLETE', 'ONGOING']);
    expect(actor!.definition).toContain('"DIVERGENCE_WARNING"');
    const events = received.filter((m) => m.type === '@xstate.event').map((m) => m.event?.type);
    expect(events).toEqual(['xstate.init', 'ROUND_CLOSED', 'PAUSE']);
    expect(snapshots().map((m) => leafOf(m.snapshot!.value as StateValue))).toEqual(['CONVERGING', 'DIVERGENCE_WARNING', 'PAUSED']);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(alive(run.child.pid!)).toBe(false);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('follows the log: an event another process appends reaches the WebSocket client within a second', async () => {
    divergingAfterRoundOne(box);
    box.ok('decide', 'pause');
    const port = await freePort();
    const run = start('inspect', '--port', String(port));
    await until('the ready message', () => run.stdout().includes('Ctrl-C'));
    const received: { message: Inspection; at: number }[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    client.on('message', (data) => received.push({ message: JSON.parse(String(data)) as Inspection, at: Date.now() }));
    const events = () => received.filter((r) => r.message.type === '@xstate.event');
    await until('the replayed events', () => events().length >= 3);

    box.ok('decide', 'resume');
    const written = Date.now();
    await until('the resume', () => events().length >= 4, 5_000);
    const resumed = events()[3]!;
    expect(resumed.message.event?.type).toBe('RESUME');
    expect(resumed.at - written).toBeLessThan(1_000);
    await until('its snapshot', () => received.filter((r) => r.message.type === '@xstate.snapshot').length >= 4);
    const last = received.filter((r) => r.message.type === '@xstate.snapshot').at(-1)!;
    expect(leafOf(last.message.snapshot!.value as StateValue)).toBe('DIVERGENCE_WARNING');
    client.close();

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('drops what a viewer sends: a forged event reaches neither a viewer connected now nor one that comes later', async () => {
    divergingAfterRoundOne(box);
    box.ok('decide', 'pause');
    const port = await freePort();
    const run = start('inspect', '--port', String(port));
    await until('the ready message', () => run.stdout().includes('Ctrl-C'));
    const watching = viewer(port);
    const forger = viewer(port);
    await until('the replay, to both', () => [watching, forger].every((v) => v.events().length >= 3));
    const forged = { type: '@xstate.event', sessionId: 'x:0', event: { type: 'FORGED' }, id: 'f', createdAt: '0', rootId: 'x:0', _version: '0' };
    await new Promise<void>((resolve, reject) => forger.socket.send(JSON.stringify(forged), (error) => (error ? reject(error) : resolve())));

    // An event another process appends after the forged one was written: once it has come, a relay would have passed the forged one on.
    box.ok('decide', 'resume');
    await until('the resume', () => watching.events().includes('RESUME'), 5_000);
    const later = viewer(port);
    await until('the later viewer has the replay and the resume', () => later.events().includes('RESUME'));
    expect(watching.events()).toEqual(['xstate.init', 'ROUND_CLOSED', 'PAUSE', 'RESUME']);
    expect(later.events()).toEqual(['xstate.init', 'ROUND_CLOSED', 'PAUSE', 'RESUME']);
    for (const v of [watching, forger, later]) v.socket.close();

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('gives a page from another origin, or a request naming another Host, neither the page nor a WebSocket; its own page gets both', async () => {
    divergingAfterRoundOne(box);
    const port = await freePort();
    const run = start('inspect', '--port', String(port));
    await until('the ready message', () => run.stdout().includes('Ctrl-C'));

    const foreign = [
      viewer(port, { origin: 'http://evil.example' }),
      viewer(port, { origin: 'http://127.0.0.1:1' }),
      viewer(port, { headers: { Host: `rebound.example:${port}` } }),
    ];
    await until('the refusals', () => foreign.every((v) => v.refused() !== null));
    expect(foreign.map((v) => v.refused())).toEqual([403, 403, 421]);
    const own = viewer(port, { origin: `http://localhost:${port}` });
    await until('the replay, to its own page', () => own.events().length >= 2);
    for (const v of foreign) expect([v.opened(), v.received]).toEqual([false, []]);
    own.socket.close();

    const [status, page] = await plainGet(`http://127.0.0.1:${port}/`, { Origin: `http://127.0.0.1:${port}` });
    expect([status, page.includes('https://stately.ai/inspect')]).toEqual([200, true]);
    for (const [headers, refusal] of [
      [{ Origin: 'http://evil.example' }, 403],
      [{ Host: `rebound.example:${port}` }, 421],
    ] as const) {
      const [got, body] = await plainGet(`http://127.0.0.1:${port}/`, headers);
      expect([got, body.includes('stately')]).toEqual([refusal, false]);
    }

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('fails with one line, and does not stay up, when the port is taken', async () => {
    divergingAfterRoundOne(box);
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    try {
      const run = start('inspect', '--port', String(port));
      expect(await run.exited).toBe(1);
      expect(run.stderr().trim().split('\n')).toHaveLength(1);
      expect(run.stderr()).toContain(`port ${port} is in use`);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('fails with one line, before listening, when there is no session', async () => {
    const run = start('inspect', '--port', String(await freePort()));
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(run.stdout()).toBe('');
  }, 30_000);

  it('is refused in-process, where nothing could stop it', async () => {
    const { runCli } = await import('./helpers.js');
    const result = runCli(['inspect'], { cwd: box.root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('gapflow bin');
  });
});

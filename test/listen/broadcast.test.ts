import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Backlog, BACKLOG_BYTES, broadcastServer, VIEWER_MESSAGE_BYTES, type Broadcast } from '../../src/listen/index.js';
import { until } from '../cli/children.js';

/*
 * The one-way feed under `watch --port` and `inspect`, on a real loopback
 * port, with real `ws` clients: what gapflow sends reaches the viewers,
 * what a viewer sends reaches nobody, and a page from elsewhere gets no
 * WebSocket at all.
 */

const running: Broadcast[] = [];
const viewers: WebSocket[] = [];
afterEach(async () => {
  for (const viewer of viewers.splice(0)) viewer.terminate();
  for (const feed of running.splice(0)) await feed.close();
});

async function serving(greeting: () => Iterable<string> = () => ['hello']): Promise<{ feed: Broadcast; port: number }> {
  const feed = await broadcastServer({ page: { type: 'text/plain; charset=utf-8', body: 'connect a WebSocket\n' }, greeting });
  running.push(feed);
  await new Promise<void>((resolve) => feed.http.listen(0, '127.0.0.1', resolve));
  return { feed, port: (feed.http.address() as AddressInfo).port };
}

interface Viewer {
  socket: WebSocket;
  received: string[];
  /** The HTTP status the handshake was refused with, or null. */
  refused: () => number | null;
  opened: () => boolean;
  closed: () => number | null;
}

function viewer(port: number, options: WebSocket.ClientOptions = {}): Viewer {
  const socket = new WebSocket(`ws://127.0.0.1:${port}`, options);
  viewers.push(socket);
  const received: string[] = [];
  let refused: number | null = null;
  let opened = false;
  let closed: number | null = null;
  socket.on('open', () => (opened = true));
  socket.on('message', (data) => received.push(String(data)));
  socket.on('unexpected-response', (_req, res) => {
    refused = res.statusCode ?? 0;
    socket.terminate();
  });
  socket.on('error', () => undefined);
  socket.on('close', (code) => (closed = code));
  return { socket, received, refused: () => refused, opened: () => opened, closed: () => closed };
}

// Real sockets, each test a server and a few clients: a budget for a busy machine.
describe('a broadcast feed', { timeout: 30_000 }, () => {
  it("sends what gapflow sends to every viewer; a viewer's message reaches no other viewer, now or later", async () => {
    const { feed, port } = await serving();
    const forger = viewer(port);
    const watcher = viewer(port);
    await until('both greeted', () => forger.received.length === 1 && watcher.received.length === 1);
    // Written out before anything else happens: a feed that passed it on would have it to pass long before the checks below.
    await new Promise<void>((resolve, reject) =>
      forger.socket.send(JSON.stringify({ type: '@xstate.event', event: { type: 'FORGED' } }), (error) => (error ? reject(error) : resolve())),
    );
    feed.send('real');
    await until('the real message', () => watcher.received.length === 2 && forger.received.length === 2);
    const late = viewer(port);
    await until('the late greeting', () => late.received.length === 1);
    feed.send('after');
    await until('the next message', () => late.received.length === 2);
    await until('the next message everywhere', () => watcher.received.length === 3 && forger.received.length === 3);
    expect(watcher.received).toEqual(['hello', 'real', 'after']);
    expect(forger.received).toEqual(['hello', 'real', 'after']);
    expect(late.received).toEqual(['hello', 'after']);
  });

  it('closes a viewer that sends a frame larger than VIEWER_MESSAGE_BYTES (1009), and goes on serving the others', async () => {
    const { feed, port } = await serving();
    const flooder = viewer(port);
    const watcher = viewer(port);
    await until('both greeted', () => flooder.received.length === 1 && watcher.received.length === 1);
    flooder.socket.send('x'.repeat(VIEWER_MESSAGE_BYTES + 1));
    await until('the flooder closed', () => flooder.closed() !== null);
    expect(flooder.closed()).toBe(1009);
    feed.send('still here');
    await until('the next message', () => watcher.received.length === 2);
    expect(watcher.received).toEqual(['hello', 'still here']);
  });

  it('refuses the handshake of a page from another origin (403) or a request naming another Host (421): no WebSocket, no message', async () => {
    let greeted = 0;
    const { feed, port } = await serving(() => {
      greeted++;
      return ['hello'];
    });
    const fromElsewhere = viewer(port, { origin: 'http://evil.example' });
    const fromAnotherPort = viewer(port, { origin: 'http://127.0.0.1:1' });
    const rebound = viewer(port, { headers: { Host: `evil.example:${port}` } });
    await until('three refusals', () => fromElsewhere.refused() !== null && fromAnotherPort.refused() !== null && rebound.refused() !== null);
    expect([fromElsewhere.refused(), fromAnotherPort.refused(), rebound.refused()]).toEqual([403, 403, 421]);
    feed.send('secret');
    // Its own page, by another loopback name, still gets the feed.
    const own = viewer(port, { origin: `http://localhost:${port}` });
    await until('the own page greeted', () => own.received.length === 1);
    for (const refused of [fromElsewhere, fromAnotherPort, rebound]) {
      expect(refused.opened()).toBe(false);
      expect(refused.received).toEqual([]);
    }
    expect(greeted).toBe(1);
  });

  it('answers plain HTTP from elsewhere with the refusal only', async () => {
    const { port } = await serving();
    const answer = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${port}/`, { headers }).then(async (r) => [r.status, await r.text()]);
    expect(await answer({})).toEqual([200, 'connect a WebSocket\n']);
    const [status, body] = await answer({ Origin: 'http://evil.example' });
    expect(status).toBe(403);
    expect(body).not.toContain('connect a WebSocket');
  });

  it('a late viewer of a relay that was sent 1,000 messages of 1 MiB gets at most BACKLOG_BYTES, the newest', { timeout: 60_000 }, async () => {
    const backlog = new Backlog();
    const { feed, port } = await serving(() => backlog.messages());
    for (let i = 0; i < 1_000; i++) {
      const text = `${String(i).padStart(8, '0')}${'x'.repeat(1024 * 1024 - 8)}`;
      backlog.add(text);
      feed.send(text);
    }
    expect(backlog.held().bytes).toBeLessThanOrEqual(BACKLOG_BYTES);
    const late = viewer(port, { maxPayload: 2 * 1024 * 1024 });
    await until('the backlog', () => late.received.length === backlog.held().count, 30_000);
    feed.send('end');
    await until('the end', () => late.received.at(-1) === 'end', 30_000);
    const replayed = late.received.slice(0, -1);
    expect(replayed.reduce((sum, m) => sum + Buffer.byteLength(m), 0)).toBeLessThanOrEqual(BACKLOG_BYTES);
    expect(Number(replayed.at(-1)!.slice(0, 8))).toBe(999);
  });
});

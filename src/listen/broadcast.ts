import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { refuseForeignRequest, refuseForeignUpgrade } from './guard.js';

/*
 * A one-way feed over WebSocket, for `watch --port` and `inspect`: gapflow
 * sends, viewers only receive. A viewer's message is never read, so nothing
 * a page or a stray client sends reaches another viewer; each request is
 * checked against the Host and Origin rules before it is answered or
 * becomes a WebSocket.
 */

/** A viewer sends nothing gapflow reads: a frame larger than this closes its connection (1009) rather than being buffered. */
export const VIEWER_MESSAGE_BYTES = 4 * 1024;

/** A viewer this far behind (bytes queued to it, unread) is dropped: one that stops reading must not make the server hold all it missed. */
export const VIEWER_BEHIND_BYTES = 64 * 1024 * 1024;

export interface BroadcastOptions {
  /** What an HTTP request that is not a WebSocket gets: a page, or a line saying how to connect. */
  page: { type: string; body: string };
  /** What a viewer is sent on connecting, in order, before any later message. */
  greeting: () => Iterable<string>;
}

export interface Broadcast {
  /** The HTTP server under the feed, not yet listening. */
  http: Server;
  /** Sends `text` to every viewer connected now. */
  send(text: string): void;
  /** Drops every viewer and closes the server. */
  close(): Promise<void>;
}

export async function broadcastServer(options: BroadcastOptions): Promise<Broadcast> {
  // Loaded here, not at the top: every other command starts without them.
  const [{ createServer }, { WebSocketServer, WebSocket }] = await Promise.all([import('node:http'), import('ws')]);
  const http: Server = createServer((req, res) => {
    if (refuseForeignRequest(http, req, res)) return;
    res.writeHead(200, { 'Content-Type': options.page.type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(req.method === 'HEAD' ? undefined : options.page.body);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: VIEWER_MESSAGE_BYTES });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refuseForeignUpgrade(http, req, socket)) return;
    wss.handleUpgrade(req, socket, head, (viewer) => wss.emit('connection', viewer, req));
  });
  wss.on('connection', (viewer: InstanceType<typeof WebSocket>) => {
    // Handled so a viewer's bad frame closes that viewer only; what it sends is dropped unread.
    viewer.on('error', () => viewer.terminate());
    for (const text of options.greeting()) viewer.send(text);
  });
  return {
    http,
    send: (text) => {
      for (const viewer of wss.clients) {
        if (viewer.readyState !== WebSocket.OPEN) continue;
        if (viewer.bufferedAmount > VIEWER_BEHIND_BYTES) viewer.terminate();
        else viewer.send(text);
      }
    },
    close: () =>
      new Promise((resolve) => {
        for (const viewer of wss.clients) viewer.terminate();
        wss.close(() => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      }),
  };
}

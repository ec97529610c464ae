import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { refusal, type Bound, type Refusal } from './origin.js';

/*
 * The Host and Origin rules (origin.ts) applied where a request comes in.
 * The rules read where the server is bound from the server itself, not from
 * what a caller was told to listen on: however the address was spelled
 * (`localhost`, `::1`, `127.0.0.2`), the check follows where it listens.
 */

/** Where `server` listens; null before it does (nothing can ask it then). */
export function boundOf(server: Server): Bound | null {
  const address = server.address();
  return address !== null && typeof address === 'object' ? { address: address.address, port: address.port } : null;
}

/** The status lines a handshake is refused with (node:http's STATUS_CODES would load the HTTP module for every command importing this door). */
const STATUS_TEXT: Record<Refusal['status'], string> = { 403: 'Forbidden', 421: 'Misdirected Request' };

function refusalFor(server: Server, req: IncomingMessage): Refusal | null {
  const bound = boundOf(server);
  // Not listening yet, or on a pipe: no request can have reached it through a web page.
  return bound === null ? null : refusal({ host: req.headers.host, origin: req.headers.origin }, bound);
}

/**
 * Answers `req` with its refusal (421 or 403, the reason as one line of
 * text, nothing of what the server holds) when `server` must not answer it;
 * true when it did.
 */
export function refuseForeignRequest(server: Server, req: IncomingMessage, res: ServerResponse): boolean {
  const why = refusalFor(server, req);
  if (why === null) return false;
  res.writeHead(why.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  });
  res.end(req.method === 'HEAD' ? undefined : `${why.reason}\n`);
  return true;
}

/**
 * Ends a WebSocket handshake with its refusal, before it becomes a
 * WebSocket (the client's `open` never fires, no message is sent); true
 * when it did.
 */
export function refuseForeignUpgrade(server: Server, req: IncomingMessage, socket: Duplex): boolean {
  const why = refusalFor(server, req);
  if (why === null) return false;
  const body = `${why.reason}\n`;
  socket.end(
    `HTTP/1.1 ${why.status} ${STATUS_TEXT[why.status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return true;
}

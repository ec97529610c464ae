import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { boundOf, refusal } from '../listen/index.js';
import type { GapflowMcp } from './server.js';

const { createServer } = process.getBuiltinModule('node:http');
const { randomUUID, timingSafeEqual, createHash } = process.getBuiltinModule('node:crypto');

/*
 * `gapflow mcp --port P`: Streamable HTTP at /mcp, with a session per client
 * (the SDK's stateful mode, so a subscriber hears of the log's growth on its
 * stream). Every request passes the listeners' Host and Origin rules first
 * (src/listen): a page on another site, or a name that rebinds to loopback,
 * gets 403 before the SDK sees it. Bound off loopback, a bearer token is
 * required as well. Sessions a client never ends are closed after
 * IDLE_MS without a request or an open stream, and at most SESSIONS_MAX
 * are kept.
 */

/** A client session left without a request this long is closed (SDK clients never send the DELETE that ends one). */
const IDLE_MS = 10 * 60 * 1000;
/** The most client sessions kept at once; the one idle longest makes room. */
const SESSIONS_MAX = 32;

export interface McpHttp {
  server: Server;
  close(): Promise<void>;
}

interface Live {
  transport: StreamableHTTPServerTransport;
  mcp: GapflowMcp;
  seen: number;
  /** Open streams (a subscriber's GET): a session listening on one is not idle. */
  streams: number;
}

/** An error as a JSON-RPC answer with its HTTP status: what an MCP client reads. */
function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `header` is `Bearer <token>` (compared in constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** Serves `build()`'s MCP server over Streamable HTTP at /mcp; not yet listening (the caller listens). */
export function serveMcpHttp(build: () => GapflowMcp, options: { token?: string | undefined } = {}): McpHttp {
  const sessions = new Map<string, Live>();
  const end = (id: string) => {
    const live = sessions.get(id);
    if (live === undefined) return;
    sessions.delete(id);
    live.mcp.close();
    void live.transport.close().catch(() => undefined);
  };
  const sweep = setInterval(() => {
    for (const [id, live] of sessions) if (live.streams === 0 && Date.now() - live.seen > IDLE_MS) end(id);
  }, 60_000);
  sweep.unref();

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reject(res, 500, error instanceof Error ? error.message : 'internal error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const bound = boundOf(server);
    const why = bound === null ? null : refusal({ host: req.headers.host, origin: req.headers.origin }, bound);
    // A foreign Origin or Host is refused whole, as every gapflow listener refuses it; MCP clients expect 403.
    if (why !== null) return reject(res, 403, why.reason);
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
      return reject(res, 401, 'a bearer token is required (Authorization: Bearer <token>)', { 'WWW-Authenticate': 'Bearer' });
    }
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return reject(res, 404, 'not found: the MCP endpoint is /mcp');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const live = sessions.get(id);
      if (live === undefined) return reject(res, 404, 'session not found: initialize a new one');
      live.seen = Date.now();
      if (req.method === 'GET') {
        live.streams += 1;
        res.once('close', () => {
          live.streams -= 1;
          live.seen = Date.now();
        });
      }
      return live.transport.handleRequest(req, res);
    }
    const mcp = build();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        if (sessions.size >= SESSIONS_MAX) {
          const oldest = [...sessions].sort(([, a], [, b]) => a.seen - b.seen)[0];
          if (oldest !== undefined) end(oldest[0]);
        }
        sessions.set(sessionId, { transport, mcp, seen: Date.now(), streams: 0 });
      },
      onsessionclosed: (sessionId) => end(sessionId),
    });
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize: nothing to keep.
    if (transport.sessionId === undefined) {
      mcp.close();
      void transport.close().catch(() => undefined);
    }
  }

  return {
    server,
    close: async () => {
      clearInterval(sweep);
      for (const id of [...sessions.keys()]) end(id);
      // Open streams end first: a server closes only once its connections have.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

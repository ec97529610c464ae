import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Fleet } from './fleet.js';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics.js';
import { refuseForeignRequest } from '../listen/index.js';
import { DASHBOARD_SCRIPT, DASHBOARD_STYLE, dashboardPage } from './page.js';

/*
 * `gapflow serve`'s HTTP side: the page, its JSON, the live feed and the
 * metrics, all from one Fleet. GET (and HEAD) only; nothing here writes.
 * Every request is first checked against the Host and Origin rules of
 * src/listen: on loopback, only loopback names and the page's own address.
 *
 *   /                        the dashboard (text/html)
 *   /dashboard.js, .css      its script and its style sheet
 *   /api/sessions            {"sessions": [row, …]}, as `fleet --json`
 *   /api/sessions/<name>     {"row", "chart", "warnings", "status"} (name URL-encoded)
 *   /events                  text/event-stream: `snapshot` on connecting, then `change` ({"rows","removed"})
 *   /metrics                 Prometheus text format 0.0.4
 */

/** How often an idle feed sends a comment, so proxies and browsers keep it open (ms). */
const KEEP_ALIVE_MS = 15_000;

/**
 * The page runs only the script and style sheet its own server sends (none
 * written into the page, so text that slipped into the page as markup could
 * run nothing), talks only to its own server, and is shown in no other
 * site's frame (no clickjacking).
 */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface Dashboard {
  server: Server;
  /** Ends every live feed and closes the server. */
  close(): Promise<void>;
}

/**
 * The dashboard's server over `fleet` (not yet listening). Where it will
 * listen decides whom it answers (src/listen): on loopback, a request
 * naming another Host, or sent by a page from another origin, is refused.
 */
export async function dashboardServer(fleet: Fleet): Promise<Dashboard> {
  // Loaded here: `gapflow fleet` prints a table and never serves.
  const { createServer } = await import('node:http');
  const feeds = new Set<ServerResponse>();
  const send = (event: string, data: unknown) => {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const feed of feeds) feed.write(text);
  };
  const unsubscribe = fleet.subscribe((change) => send('change', change));
  const keepAlive = setInterval(() => {
    for (const feed of feeds) feed.write(': keep-alive\n\n');
  }, KEEP_ALIVE_MS);
  keepAlive.unref();

  const server = createServer((req, res) => {
    try {
      route(req, res);
    } catch (error) {
      // A failure answering one request is that request's: the server goes on.
      if (!res.headersSent) reply(res, 500, 'text/plain; charset=utf-8', `${error instanceof Error ? error.message : String(error)}\n`);
      else res.end();
    }
  });

  const route = (req: IncomingMessage, res: ServerResponse) => {
    if (refuseForeignRequest(server, req, res)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(res, 405, 'text/plain; charset=utf-8', 'only GET and HEAD\n');
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/') {
      res.setHeader('Content-Security-Policy', PAGE_POLICY);
      res.setHeader('X-Frame-Options', 'DENY');
      return reply(res, 200, 'text/html; charset=utf-8', dashboardPage(fleet.location));
    }
    if (path === '/dashboard.js') return reply(res, 200, 'text/javascript; charset=utf-8', DASHBOARD_SCRIPT);
    if (path === '/dashboard.css') return reply(res, 200, 'text/css; charset=utf-8', DASHBOARD_STYLE);
    if (path === '/api/sessions') return json(res, 200, { sessions: fleet.rows() });
    if (path.startsWith('/api/sessions/')) {
      let name: string;
      try {
        name = decodeURIComponent(path.slice('/api/sessions/'.length));
      } catch {
        return json(res, 400, { error: 'the session name is not URL-encoded UTF-8' });
      }
      const detail = fleet.detail(name);
      return detail === undefined ? json(res, 404, { error: `no session named ${JSON.stringify(name)}` }) : json(res, 200, detail);
    }
    if (path === '/metrics') return reply(res, 200, METRICS_CONTENT_TYPE, metricsText(fleet.rows()));
    if (path === '/events') {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Content-Type-Options': 'nosniff',
      });
      res.write(`retry: 1000\nevent: snapshot\ndata: ${JSON.stringify({ sessions: fleet.rows() })}\n\n`);
      feeds.add(res);
      req.on('close', () => feeds.delete(res));
      return;
    }
    return json(res, 404, { error: `nothing at ${path}` });
  };

  return {
    server,
    close: () =>
      new Promise((resolve) => {
        unsubscribe();
        clearInterval(keepAlive);
        for (const feed of feeds) feed.end();
        feeds.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function reply(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  reply(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`);
}

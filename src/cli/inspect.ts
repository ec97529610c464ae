import type { Server } from 'node:http';
import { parse, UsageError, wholeNumber } from './args.js';
import { sessionDir, type CliIO } from './common.js';
import { openFileSession } from '../session/index.js';
import { inspectingLines } from '../render/index.js';

const STATELY_INSPECTOR = 'https://stately.ai/inspect';

/**
 * The page a browser opens: Stately's inspector in a frame, fed every message
 * this server relays (the same bridge @statelyai/inspect's own server serves).
 */
function bridgePage(port: number): string {
  return `<!DOCTYPE html>
<html><head><title>gapflow: Stately inspector</title>
<style>html,body,iframe{margin:0;height:100%;width:100%;border:0}</style></head>
<body><iframe id="inspector" src="${STATELY_INSPECTOR}"></iframe>
<script>
  const frame = document.getElementById('inspector');
  const waiting = [];
  let ready = false;
  addEventListener('message', (e) => {
    if (e.data && e.data.type === '@statelyai.connected') {
      ready = true;
      waiting.splice(0).forEach((m) => frame.contentWindow.postMessage(m, '*'));
    }
  });
  new WebSocket('ws://' + location.hostname + ':${port}').onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (ready) frame.contentWindow.postMessage(m, '*'); else waiting.push(m);
  };
</script></body></html>`;
}

interface Relay {
  url: string;
  close: () => Promise<void>;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use; pick another with --port`) : error);
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/**
 * A local HTTP + WebSocket relay. Written here rather than taken from
 * @statelyai/inspect/server because that one keeps only the last 200
 * messages for a late viewer (the actor's definition comes first and would be
 * lost on any long session) and throws on a busy port: this one keeps every
 * message of the replay and fails with one line.
 */
async function startRelay(port: number): Promise<Relay> {
  // Loaded here, not at the top: every other command starts without them.
  const [{ createServer }, { WebSocketServer, WebSocket }] = await Promise.all([import('node:http'), import('ws')]);
  const http = createServer((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(bridgePage(port));
  });
  await listen(http, port);
  const wss = new WebSocketServer({ server: http });
  const seen: string[] = [];
  wss.on('connection', (socket) => {
    for (const message of seen) socket.send(message);
    socket.on('message', (data) => {
      const message = String(data);
      seen.push(message);
      for (const client of wss.clients) if (client !== socket && client.readyState === WebSocket.OPEN) client.send(message);
    });
  });
  return {
    url: `ws://127.0.0.1:${port}`, // loopback only: a session's gaps are not for the network
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => http.close(() => resolve()));
      }),
  };
}

/**
 * `gapflow inspect [--port P]`: replays the session into a live actor wired to
 * @statelyai/inspect's WebSocket inspector, serves the inspector page, and
 * stays up until `stop` settles (SIGINT or SIGTERM in the bin).
 */
export async function inspect(argv: string[], io: CliIO, stop: Promise<unknown>): Promise<void> {
  const { values } = parse(argv, { port: { type: 'string' } }, []);
  const port = wholeNumber('port', values.port) ?? 8080;
  if (port < 1 || port > 65535) throw new UsageError(`--port takes 1 to 65535, not ${port}`);
  const dir = sessionDir(values.dir, io);
  // Read the log once before anything listens, so a bad log fails with its one line and nothing to shut down.
  openFileSession(dir);
  const relay = await startRelay(port);
  const { createWebSocketInspector } = await import('@statelyai/inspect');
  // Keep the whole replay until the socket opens (the default keeps 200).
  const inspector = createWebSocketInspector({ url: relay.url, maxDeferredEvents: 1_000_000 });
  try {
    const session = openFileSession(dir, { inspect: inspector.inspect });
    io.stdout(inspectingLines(dir, session.view, `http://127.0.0.1:${port}`, STATELY_INSPECTOR, relay.url));
    await stop;
  } finally {
    inspector.stop();
    await relay.close();
  }
}

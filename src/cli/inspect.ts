import { parse } from './args.js';
import { closeAll, listen, LOOPBACK, portOption } from './serve.js';
import { open, type CliIO } from './common.js';
import { FileLog } from '../log/index.js';
import { errorLine, inspectingLines } from '../render/index.js';

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
    url: `ws://${LOOPBACK}:${port}`,
    close: () => closeAll(wss.clients, wss, http),
  };
}

/**
 * `gapflow inspect [--port P]`: replays the session into a live actor wired to
 * @statelyai/inspect's WebSocket inspector, serves the inspector page, then
 * follows the log (what other processes append is played to the actor as it
 * comes) until `stop` settles (SIGINT or SIGTERM in the bin).
 */
export async function inspect(argv: string[], io: CliIO, stop: Promise<unknown>): Promise<void> {
  const { values } = parse(argv, { port: { type: 'string' } }, []);
  const port = portOption(values.port) ?? 8080;
  // Read the log once before anything listens, so a bad log fails with its one line and nothing to shut down.
  const { log } = open(values, io);
  const dir = log instanceof FileLog ? log.dir : log.location;
  const relay = await startRelay(port);
  const { createWebSocketInspector } = await import('@statelyai/inspect');
  // Keep the whole replay until the socket opens (the default keeps 200).
  const inspector = createWebSocketInspector({ url: relay.url, maxDeferredEvents: 1_000_000 });
  try {
    const session = open(values, io, { inspect: inspector.inspect });
    // What other processes append from now on reaches the actor, and so the inspector, as it is written.
    const unfollow = session.follow({ onError: (error) => io.stderr(errorLine(error.message)) });
    try {
      io.stdout(inspectingLines(dir, session.view, `http://${LOOPBACK}:${port}`, STATELY_INSPECTOR, relay.url));
      await stop;
    } finally {
      unfollow();
    }
  } finally {
    inspector.stop();
    await relay.close();
  }
}

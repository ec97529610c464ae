import type { ParsedCall } from './args.js';
import type { PORT_FLAGS } from './table.js';
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { configure } from 'safe-stable-stringify';
import { Backlog, broadcastServer } from '../listen/index.js';
import { listen, LOOPBACK, portOption } from './serve.js';
import { open, type CliIO } from './common.js';
import { FileLog } from '../log/index.js';
import { errorLine, inspectingLines } from '../render/index.js';

const STATELY_INSPECTOR = 'https://stately.ai/inspect';
/** The session is posted only to Stately's frame, and only a word from it starts the flow: never to or from whatever else the frame may show. */
const STATELY_ORIGIN = new URL(STATELY_INSPECTOR).origin;

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
    if (e.origin === '${STATELY_ORIGIN}' && e.data && e.data.type === '@statelyai.connected') {
      ready = true;
      waiting.splice(0).forEach((m) => frame.contentWindow.postMessage(m, '${STATELY_ORIGIN}'));
    }
  });
  new WebSocket('ws://' + location.hostname + ':${port}').onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (ready) frame.contentWindow.postMessage(m, '${STATELY_ORIGIN}'); else waiting.push(m);
  };
</script></body></html>`;
}

/**
 * A message as the inspector's own WebSocket adapter writes it: its
 * serializer (safe-stable-stringify) at its depth limit, so a reference back
 * into the event is written as a string instead of throwing.
 */
const stringifyInspection = configure({ maximumDepth: 10 });
const inspectionJson = (event: StatelyInspectionEvent): string => stringifyInspection(event);

interface Relay {
  url: string;
  /** Sends what the session's actor reports to the viewers, and keeps it for later ones. */
  publish: (event: StatelyInspectionEvent) => void;
  close: () => Promise<void>;
}

/**
 * The inspector's local relay. gapflow hands it what the actor reports in
 * this process, so no socket is ever read for what to relay: a viewer (or
 * any page or program that connects) only receives, and what it sends is
 * dropped. A late viewer gets the backlog: the actor's definition (pinned,
 * as nothing makes sense without it; @statelyai/inspect's own server keeps
 * the last 200 messages and so loses it on any long session) and the latest
 * messages within BACKLOG_MESSAGES and BACKLOG_BYTES.
 */
async function startRelay(port: number): Promise<Relay> {
  const backlog = new Backlog();
  const feed = await broadcastServer({ page: { type: 'text/html; charset=utf-8', body: bridgePage(port) }, greeting: () => backlog.messages() });
  await listen(feed.http, port);
  return {
    url: `ws://${LOOPBACK}:${port}`,
    publish: (event) => {
      const text = inspectionJson(event);
      backlog.add(text, event.type === '@xstate.actor');
      feed.send(text);
    },
    close: feed.close,
  };
}

/**
 * `gapflow inspect [--port P]`: replays the session into a live actor wired to
 * @statelyai/inspect's WebSocket inspector, serves the inspector page, then
 * follows the log (what other processes append is played to the actor as it
 * comes) until `stop` settles (SIGINT or SIGTERM in the bin).
 */
export async function inspect({ values }: ParsedCall<typeof PORT_FLAGS>, io: CliIO, stop: Promise<unknown>): Promise<void> {
  const port = portOption(values.port) ?? 8080;
  // Read the log once before anything listens, so a bad log fails with its one line and nothing to shut down.
  const { log } = open(values, io);
  const dir = log instanceof FileLog ? log.dir : log.location;
  const relay = await startRelay(port);
  const { createInspector } = await import('@statelyai/inspect');
  const inspector = createInspector({ send: relay.publish });
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

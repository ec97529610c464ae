import { toStateJson, type SessionView } from '../core/index.js';
import { renderWatchFrame } from '../render/index.js';
import type { SessionUpdate } from '../session/index.js';
import { FileLog } from '../log/index.js';
import type { ParsedCall } from './args.js';
import { stdoutStream } from './out.js';
import { open, type CliIO } from './common.js';
import type { PORT_FLAGS } from './table.js';
import { listen, LOOPBACK, portOption } from './serve.js';
import { broadcastServer } from '../listen/index.js';

/** Where `watch` draws its frames: the process's terminal, or a stand-in in tests. */
export interface Terminal {
  /** A terminal that takes cursor movement: frames are redrawn in place on the alternate screen. Else each is printed after the last. */
  readonly isTTY: boolean;
  size(): { columns: number; rows: number };
  write(text: string): void;
  /** Calls `listener` when the terminal is resized; returns the unsubscribe. */
  onResize(listener: () => void): () => void;
}

export function processTerminal(): Terminal {
  const out = stdoutStream();
  return {
    isTTY: out.isTTY === true,
    size: () => ({ columns: out.columns || 80, rows: out.rows || 24 }),
    write: (text) => out.write(text),
    onResize: (listener) => {
      out.on('resize', listener);
      return () => out.off('resize', listener);
    },
  };
}

/** Alternate screen on, cursor hidden; the way back; home and clear before each frame. */
export const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';
export const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';
const CLEAR = '\x1b[H\x1b[2J';

/** Rounds a frame shows when it is not on a terminal (a pipe, a file): enough to read, not the whole history each time. */
const PRINTED_HEIGHT = 31;

/** What `--json` prints a line of, and the WebSocket feed sends: what a write's `--json` prints (the new events and the state). */
function message(events: SessionUpdate['events'], view: SessionView): string {
  return JSON.stringify({ events, state: toStateJson(view) });
}

interface Feed {
  url: string;
  send: (text: string) => void;
  close: () => Promise<void>;
}

/**
 * A WebSocket feed on loopback: each viewer gets the state when it connects,
 * then every update. Only gapflow sends on it, and only to loopback names
 * and pages from its own address (see src/listen).
 */
async function startFeed(port: number, current: () => string): Promise<Feed> {
  const url = `ws://${LOOPBACK}:${port}`;
  const feed = await broadcastServer({
    page: {
      type: 'text/plain; charset=utf-8',
      body: `gapflow watch: connect a WebSocket client to ${url} for the state and every update, one JSON object a message\n`,
    },
    greeting: () => [current()],
  });
  await listen(feed.http, port);
  return { url, send: feed.send, close: feed.close };
}

/**
 * `gapflow watch [--json] [--port P]`: follows the session's log and, after
 * each event another process appends, redraws where the session stands,
 * its latest rounds and the reason for its last step. `--json` prints one
 * JSON object a line instead (the events and the state); `--port` also
 * serves them to WebSocket clients on loopback. Stays up until `stop`
 * settles (Ctrl-C), then leaves the terminal as it found it.
 */
export async function watch(
  { values }: ParsedCall<typeof PORT_FLAGS>,
  io: CliIO,
  stop: Promise<unknown>,
  terminal: Terminal = processTerminal(),
): Promise<void> {
  const port = portOption(values.port);
  // Opened before anything listens or takes the screen, so a bad log fails with its one line and nothing to undo.
  const session = open(values, io);
  const dir = session.log instanceof FileLog ? session.log.dir : session.log.location;
  const feed = port === undefined ? null : await startFeed(port, () => message([], session.view));
  const json = values.json === true;
  const onScreen = terminal.isTTY && !json;
  let problem: string | null = null;

  const draw = () => {
    if (json) return;
    const { columns, rows } = terminal.size();
    const height = onScreen ? rows - 1 : PRINTED_HEIGHT;
    const frame = renderWatchFrame(session.view, { dir, width: onScreen ? columns : Number.POSITIVE_INFINITY, height, problem, feed: feed?.url ?? null });
    terminal.write(onScreen ? `${CLEAR}${frame}` : `${frame}\n`);
  };

  if (onScreen) terminal.write(ENTER_SCREEN);
  const undo: (() => void)[] = [];
  try {
    if (json) io.stdout(`${message([], session.view)}\n`);
    draw();
    undo.push(
      session.subscribe(({ events, view }) => {
        problem = null;
        const text = message(events, view);
        if (json) io.stdout(`${text}\n`);
        feed?.send(text);
        draw();
      }),
    );
    undo.push(
      session.follow({
        // The wait for Ctrl-C holds no handle of its own: the follow keeps the process up.
        persistent: true,
        onError: (error) => {
          problem = error.message;
          if (json) io.stdout(`${JSON.stringify({ error: problem })}\n`);
          feed?.send(JSON.stringify({ error: problem }));
          draw();
        },
      }),
    );
    if (onScreen) undo.push(terminal.onResize(draw));
    await stop;
  } finally {
    for (const step of undo.reverse()) step();
    if (onScreen) terminal.write(LEAVE_SCREEN);
    await feed?.close();
  }
}

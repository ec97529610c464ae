import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { StateJson } from '../../src/core/index.js';
import { ENTER_SCREEN, LEAVE_SCREEN, watch, type Terminal } from '../../src/cli/index.js';
import { alive, BIN, childKeeper, freePort, plainGet, until } from './children.js';
import { convergingAfterRoundOne, divergingAfterRoundOne, runCli, Sandbox } from './helpers.js';

/*
 * `gapflow watch` as a user runs it: the built bin in its own process,
 * followed by a WebSocket client on loopback and through its --json lines,
 * then Ctrl-C; and in-process on a stand-in terminal, for what it draws.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const spawnBin = childKeeper();
const start = (...argv: string[]) => spawnBin([...argv, '--dir', box.dir], box.root);

interface Update {
  events: { seq: number; type: string; data: Record<string, unknown> }[];
  state: StateJson;
}

describe('gapflow watch, from the bin', () => {
  it('serves the state to a WebSocket client, then an event another process appends within a second, and stops on Ctrl-C', async () => {
    convergingAfterRoundOne(box);
    const port = await freePort();
    const run = start('watch', '--port', String(port));
    await until('the first frame', () => run.stdout().includes('Ctrl-C to stop'));
    expect(run.stdout()).toContain(`ws://127.0.0.1:${port}`);

    const received: { update: Update; at: number }[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    client.on('message', (data) => received.push({ update: JSON.parse(String(data)) as Update, at: Date.now() }));
    await until('the state on connecting', () => received.length >= 1);
    expect(received[0]!.update.events).toEqual([]);
    expect(received[0]!.update.state).toMatchObject({ state: 'CONVERGING', round: 1, openGapCount: 1 });

    box.ok('gap', 'open', 'GAP-L9', '--severity', 'LOW', '--title', 'Late find');
    const written = Date.now();
    await until('the update', () => received.length >= 2, 5_000);
    const { update, at } = received[1]!;
    expect(at - written).toBeLessThan(1_000);
    expect(update.events.map((e) => e.type)).toEqual(['round.started', 'gap.opened']);
    expect(update.events[1]!.data).toMatchObject({ id: 'GAP-L9', severity: 'LOW', title: 'Late find' });
    expect(update.state).toMatchObject({ roundOpen: true, openGapCount: 2, eventCount: update.events[1]!.seq });
    // The terminal view was redrawn too: the new seq, the open round, the new count.
    await until('the redrawn frame', () => run.stdout().includes(`(seq ${update.events[1]!.seq})`));
    const frame = run.stdout().slice(run.stdout().lastIndexOf('gapflow watch:'));
    expect(frame).toContain('round 2 open');
    expect(frame).toContain('Open count: 2 (weighted 5)');
    client.close();

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(alive(run.child.pid!)).toBe(false);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('--port gives a page from another origin, or a request naming another Host, no WebSocket and no state; its own page and a client without Origin get it', async () => {
    convergingAfterRoundOne(box);
    const port = await freePort();
    const run = start('watch', '--port', String(port));
    await until('the first frame', () => run.stdout().includes('Ctrl-C to stop'));

    const attempt = (options: WebSocket.ClientOptions) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}`, options);
      const seen = { status: null as number | null, opened: false, messages: [] as string[] };
      socket.on('unexpected-response', (_req, res) => {
        seen.status = res.statusCode ?? 0;
        socket.terminate();
      });
      socket.on('open', () => (seen.opened = true));
      socket.on('message', (data) => seen.messages.push(String(data)));
      socket.on('error', () => undefined);
      return { socket, seen };
    };
    const foreign = [
      attempt({ origin: 'http://evil.example' }),
      attempt({ origin: 'http://127.0.0.1:1' }),
      attempt({ headers: { Host: `rebound.example:${port}` } }),
    ];
    await until('the refusals', () => foreign.every(({ seen }) => seen.status !== null));
    expect(foreign.map(({ seen }) => seen.status)).toEqual([403, 403, 421]);

    const own = [attempt({ origin: `http://127.0.0.1:${port}` }), attempt({ origin: `http://localhost:${port}` }), attempt({})];
    await until('the state, to each of its own', () => own.every(({ seen }) => seen.messages.length >= 1));
    for (const { seen } of own) expect((JSON.parse(seen.messages[0]!) as Update).state).toMatchObject({ state: 'CONVERGING' });
    for (const { seen } of foreign) expect([seen.opened, seen.messages]).toEqual([false, []]);
    for (const { socket } of [...foreign, ...own]) socket.terminate();

    // Plain HTTP too: refused, with nothing but the reason.
    const http = (headers: Record<string, string>) => plainGet(`http://127.0.0.1:${port}/`, headers);
    expect((await http({}))[0]).toBe(200);
    for (const [headers, status] of [
      [{ Origin: 'http://evil.example' }, 403],
      [{ Host: `rebound.example:${port}` }, 421],
    ] as const) {
      const [got, body] = await http(headers);
      expect(got).toBe(status);
      expect(body).not.toContain('WebSocket client');
    }

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('with --json prints the state, then a JSON line per update, each what a write prints with --json', async () => {
    divergingAfterRoundOne(box);
    const run = start('watch', '--json');
    const lines = () =>
      run
        .stdout()
        .split('\n')
        .filter((line) => line !== '');
    await until('the first line', () => lines().length >= 1);
    const first = JSON.parse(lines()[0]!) as Update;
    expect(first).toEqual({ events: [], state: expect.objectContaining({ state: 'DIVERGENCE_WARNING' }) });

    box.ok('decide', 'accept-complexity');
    await until('the update line', () => lines().length >= 2, 5_000);
    const second = JSON.parse(lines()[1]!) as Update;
    expect(second.events.map((e) => e.type)).toEqual(['decision.made']);
    expect(second.state).toMatchObject({ state: 'CONVERGING' });
    expect(second.state.history.at(-1)).toMatchObject({ from: 'DIVERGENCE_WARNING', to: 'CONVERGING' });

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    // Nothing but JSON lines: no frame, no screen control.
    expect(run.stdout()).not.toContain('\x1b');
    expect(lines()).toHaveLength(2);
  }, 30_000);

  it('fails with one line, before taking the terminal or a port, when there is no session', async () => {
    const run = start('watch', '--port', String(await freePort()));
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(run.stderr()).toMatch(/^gapflow: no session in /);
    expect(run.stdout()).toBe('');
  }, 30_000);

  it('fails with one line, and does not stay up, when the port is taken', async () => {
    convergingAfterRoundOne(box);
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    try {
      const run = start('watch', '--port', String(port));
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toBe(`gapflow: port ${port} is in use; pick another with --port\n`);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('is refused in-process, where nothing could stop it', () => {
    const result = runCli(['watch'], { cwd: box.root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run it from the gapflow bin');
  });
});

/** A terminal of `columns` x `rows` that keeps what is written to it. */
function standIn(columns: number, rows: number) {
  const writes: string[] = [];
  const resized = new Set<() => void>();
  const terminal: Terminal = {
    isTTY: true,
    size: () => ({ columns, rows }),
    write: (text) => void writes.push(text),
    onResize: (listener) => {
      resized.add(listener);
      return () => resized.delete(listener);
    },
  };
  return { terminal, writes, resized };
}

describe('gapflow watch on a terminal', () => {
  it('draws on the alternate screen, redraws after an append, and gives the terminal back when stopped', { timeout: 20_000 }, async () => {
    convergingAfterRoundOne(box);
    const { terminal, writes, resized } = standIn(60, 12);
    let interrupt!: () => void;
    const stopped = new Promise<void>((resolve) => (interrupt = resolve));
    const io = { stdout: () => undefined, stderr: (text: string) => void writes.push(`stderr: ${text}`), env: {}, cwd: box.root };
    const running = watch({ verb: undefined, values: { dir: box.dir }, args: [] }, io, stopped, terminal);
    await until('the first frame', () => writes.some((w) => w.includes('Ctrl-C to stop')));
    expect(writes[0]).toBe(ENTER_SCREEN);

    box.ok('gap', 'open', 'GAP-L9', '--severity', 'LOW');
    await until('the redrawn frame', () => writes.at(-1)!.includes('Open count: 2 '));
    const frame = writes.at(-1)!;
    // Each frame is drawn from the top of a cleared screen, within the terminal's width and height.
    expect(frame.startsWith('\x1b[H\x1b[2J')).toBe(true);
    const lines = frame.slice('\x1b[H\x1b[2J'.length).trimEnd().split('\n');
    expect(lines.length).toBeLessThan(12);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);

    expect(resized.size).toBe(1);
    const before = writes.length;
    for (const listener of resized) listener();
    expect(writes.length).toBe(before + 1);

    interrupt();
    await running;
    expect(writes.at(-1)).toBe(LEAVE_SCREEN);
    expect(resized.size).toBe(0);
    expect(writes.filter((w) => w.startsWith('stderr'))).toEqual([]);
  });
});

const python = spawnSync('python3', ['--version']).status === 0;

/** Runs the bin's `watch` on a real pseudo-terminal, presses Ctrl-C once the frame is up, and reports what the terminal showed and the exit code. */
const PTY_SCRIPT = `
import os, pty, select, struct, sys, time, fcntl, termios
bin_path, folder = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execvp('node', ['node', bin_path, 'watch', '--dir', folder])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 20, 72, 0, 0))
out = b''
def read(seconds):
    global out
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out += chunk
            if b'Ctrl-C to stop' in out and not pressed:
                return True
    return True
pressed = False
read(15)
pressed = True
os.write(fd, b'\\x03')
read(5)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

describe.skipIf(!python)('gapflow watch on a real terminal', () => {
  it('Ctrl-C leaves the alternate screen, shows the cursor again, and exits 0', { timeout: 30_000 }, () => {
    convergingAfterRoundOne(box);
    const result = spawnSync('python3', ['-c', PTY_SCRIPT, BIN, box.dir], { encoding: 'latin1', timeout: 25_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const shown = result.stdout;
    expect(shown.startsWith(ENTER_SCREEN)).toBe(true);
    expect(shown).toContain('State: CONVERGING');
    expect(shown.trimEnd().endsWith(LEAVE_SCREEN)).toBe(true);
  });
});

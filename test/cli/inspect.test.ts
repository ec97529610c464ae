import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { divergingAfterRoundOne, Sandbox } from './helpers.js';
import type { StateValue } from 'xstate';
import { leafOf } from '../../machines/index.js';

/*
 * `gapflow inspect` as a user runs it: the built bin in its own process, a
 * real WebSocket client, then Ctrl-C (SIGINT). Every child is killed in
 * afterEach whatever happens, so a failing test leaves no process behind.
 */

const bin = fileURLToPath(new URL('../../dist/gapflow.js', import.meta.url));

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

let box: Sandbox;
let children: ChildProcess[];

beforeEach(() => {
  box = new Sandbox();
  children = [];
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  box.remove();
});

function start(...argv: string[]): Running {
  const child = spawn('node', [bin, ...argv, '--dir', box.dir], { cwd: box.root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += String(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => (err += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Inspection {
  type: string;
  definition?: string;
  event?: { type: string };
  snapshot?: { value?: unknown; context?: { flatCount?: number } };
}

describe('gapflow inspect', () => {
  it("sends the machine's definition, every event and snapshot of a replayed session to a WebSocket client, then stops on Ctrl-C", async () => {
    divergingAfterRoundOne(box);
    box.ok('decide', 'pause');
    const port = await freePort();
    const run = start('inspect', '--port', String(port));
    await until('the ready message', () => run.stdout().includes('Ctrl-C'));
    expect(run.stdout()).toContain(`http://127.0.0.1:${port}`);

    const page = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
    expect(page).toContain('https://stately.ai/inspect');

    const received: Inspection[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    client.on('message', (data) => received.push(JSON.parse(String(data)) as Inspection));
    // The session sent the actor a round close and a pause: init + 2 events, each with its snapshot.
    const snapshots = () => received.filter((m) => m.type === '@xstate.snapshot');
    await until('three snapshots', () => snapshots().length >= 3);
    client.close();

    const actor = received.find((m) => m.type === '@xstate.actor');
    expect(actor?.definition).toBeDefined();
    const definition = JSON.parse(actor!.definition!) as { id: string; states: Record<string, unknown> };
    expect(definition.id).toBe('convergence');
    expect(Object.keys(definition.states).sort()).toEqual(['COMPLETE', 'ONGOING']);
    expect(actor!.definition).toContain('"DIVERGENCE_WARNING"');
    const events = received.filter((m) => m.type === '@xstate.event').map((m) => m.event?.type);
    expect(events).toEqual(['xstate.init', 'ROUND_CLOSED', 'PAUSE']);
    expect(snapshots().map((m) => leafOf(m.snapshot!.value as StateValue))).toEqual(['CONVERGING', 'DIVERGENCE_WARNING', 'PAUSED']);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(alive(run.child.pid!)).toBe(false);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('fails with one line, and does not stay up, when the port is taken', async () => {
    divergingAfterRoundOne(box);
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    try {
      const run = start('inspect', '--port', String(port));
      expect(await run.exited).toBe(1);
      expect(run.stderr().trim().split('\n')).toHaveLength(1);
      expect(run.stderr()).toContain(`port ${port} is in use`);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('fails with one line, before listening, when there is no session', async () => {
    const run = start('inspect', '--port', String(await freePort()));
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(run.stdout()).toBe('');
  }, 30_000);

  it('is refused in-process, where nothing could stop it', async () => {
    const { runCli } = await import('./helpers.js');
    const result = runCli(['inspect'], { cwd: box.root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('gapflow bin');
  });
});

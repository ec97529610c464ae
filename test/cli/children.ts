import { request } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/*
 * The built bin run as a user runs it, in its own process, for the commands
 * that stay up until Ctrl-C (`inspect`, `watch`). Every child is killed
 * after each test whatever happens, so a failing test leaves no process
 * behind.
 */

export const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Keeps the children a test file starts, and kills those still running after each test (or when `after` says). */
export function childKeeper(after: (kill: () => void) => void = afterEach): (argv: string[], cwd: string) => Running {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return (argv, cwd) => {
    const child = spawn('node', [BIN, ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += String(chunk)));
    child.stderr!.on('data', (chunk: Buffer) => (err += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, stdout: () => out, stderr: () => err, exited };
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A GET by node's own client, which sends the Host it is given (fetch sends its own). */
export function plainGet(url: string, headers: Record<string, string>): Promise<readonly [number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', () => resolve([res.statusCode!, body]));
    });
    req.on('error', reject);
    req.end();
  });
}

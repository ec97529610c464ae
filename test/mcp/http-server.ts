import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The package's bin, as a harness runs it. */
export const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** `gapflow mcp --dir DIR --port P` as a child process, once it has printed its URL (its first line). */
export async function mcpOverHttp(dir: string, cwd: string, ...more: string[]): Promise<{ url: URL; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'mcp', '--dir', dir, '--port', String(port), ...more], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(new URL(out.split('\n')[0]!));
    });
    child.once('exit', (code) => reject(new Error(`gapflow mcp exited ${code}`)));
  });
  return { url, child };
}

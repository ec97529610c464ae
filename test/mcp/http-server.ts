import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../cli/children.js';

export { freePort };

/** The package's bin, as a harness runs it. */
export const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));

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

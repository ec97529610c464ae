import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, mcpOverHttp } from './http-server.js';

/*
 * The official MCP conformance suite (@modelcontextprotocol/conformance)
 * against `gapflow mcp --port`. The suite needs Node 22, which the npm
 * package `node` provides: both live in test/tools/mcp-conformance, a
 * package of their own installed here from its lockfile, so that gapflow
 * itself builds and tests on Node 20 (a `node` package among gapflow's own
 * would put Node 22 first on every npm script's PATH).
 */

const TOOLS = fileURLToPath(new URL('../tools/mcp-conformance', import.meta.url));
const NODE22 = join(TOOLS, 'node_modules', 'node', 'bin', 'node');
const SUITE = join(TOOLS, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];

let root: string;
let server: ChildProcess | null = null;
let url = '';

beforeAll(async () => {
  // Installed once per checkout, from its lockfile (the package's install fetches the Node 22 binary).
  if (!existsSync(NODE22) || !existsSync(SUITE))
    execFileSync('npm', ['ci', '--prefix', TOOLS, '--no-audit', '--no-fund'], { stdio: 'ignore', timeout: 300_000 });
  root = mkdtempSync(join(tmpdir(), 'gapflow-conformance-'));
  execFileSync(process.execPath, [BIN, 'init', '--dir', join(root, '.gapflow')]);
  const started = await mcpOverHttp(join(root, '.gapflow'), root);
  server = started.child;
  url = started.url.href;
}, 360_000);

afterAll(() => {
  server?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** One scenario of the suite, run by Node 22: its exit code and what it printed (colour codes taken out). */
function scenario(name: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(NODE22, [SUITE, 'server', '--url', url, '--scenario', name], { timeout: 120_000 }, (error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex -- the suite colours its output even into a pipe
      const out = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
      resolve({ code: error ? Number(error.code ?? 1) : 0, out });
    });
  });
}

describe('the MCP conformance suite against gapflow mcp --port', () => {
  it('runs on Node 22 while gapflow runs on Node 20', () => {
    expect(execFileSync(NODE22, ['--version'], { encoding: 'utf8' })).toMatch(/^v22\./);
    expect(process.version).toMatch(/^v20\./);
  });

  for (const name of SCENARIOS) {
    it(`passes ${name}`, { timeout: 150_000 }, async () => {
      const { code, out } = await scenario(name);
      expect(out, out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code, out).toBe(0);
    });
  }
});

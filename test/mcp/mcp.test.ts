import { type ChildProcess, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PromptListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, Sandbox } from '../cli/helpers.js';
import { BIN, freePort, mcpOverHttp } from './http-server.js';

/*
 * `gapflow mcp` driven by the official SDK's own Client: over stdio, as a
 * harness starts it (a real child process of the package's bin), and over
 * Streamable HTTP on loopback. The answers are checked against the log on
 * disk and against what the CLI says of the same session.
 */

interface Written {
  recorded: { seq: number; type: string; id?: string }[];
  next: { action: string; state: string; round: number; roundOpen: boolean; openGapCount: number; lastSeq: number };
}

let box: Sandbox;
let client: Client | null = null;
let server: ChildProcess | null = null;
beforeEach(() => {
  box = new Sandbox();
  box.ok('init');
});
afterEach(async () => {
  await client?.close();
  client = null;
  server?.kill();
  server = null;
  box.remove();
});

async function connect(transport: Transport): Promise<Client> {
  client = new Client({ name: 'gapflow-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function stdio(): Promise<Client> {
  return connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--dir', box.dir],
      cwd: box.root,
      env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? '' },
      stderr: 'pipe',
    }),
  );
}

/** `gapflow mcp --port P` as a child, kept to be stopped after the test; its URL. */
async function httpServer(...more: string[]): Promise<URL> {
  const { url, child } = await mcpOverHttp(box.dir, box.root, ...more);
  server = child;
  return url;
}

async function call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client!.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

/** The log's lines on disk, as (seq, type, gap id). */
function logged(): { seq: number; type: string; id?: string }[] {
  return box.logLines().map((line) => {
    const event = JSON.parse(line) as { seq: number; type: string; data: { id?: string } };
    return { seq: event.seq, type: event.type, ...(event.data.id === undefined ? {} : { id: event.data.id }) };
  });
}

/** Plays a round through the tools, checking each answer against the log; what every transport must do. */
async function playRound(): Promise<void> {
  const opened = await call<Written>('open_gaps', {
    gaps: [
      { id: 'AUTH-1', severity: 'HIGH', title: 'Login accepts an empty password' },
      { id: 'DOC-1', severity: 'LOW', title: 'README typo' },
    ],
  });
  expect(opened.recorded).toEqual(logged().slice(1, 3));
  expect(opened.next).toMatchObject({ action: 'continue', openGapCount: 2, round: 0 });
  const started = await call<Written>('start_round');
  expect(started.next).toMatchObject({ round: 0, roundOpen: true });
  const moved = await call<Written>('move_gaps', { moves: [{ id: 'AUTH-1', to: 'RESOLVED', reason: 'empty passwords refused' }] });
  expect(moved.recorded).toEqual([{ seq: 5, type: 'gap.moved', id: 'AUTH-1' }]);
  const closed = await call<Written & { verdict: { round: number; verdict: string; resolved: number; openEnd: number } }>('close_round');
  expect(closed.verdict).toMatchObject({ round: 1, verdict: 'progress', resolved: 1, openEnd: 1 });
  expect(closed.recorded).toEqual([{ seq: 6, type: 'round.closed' }]);
  expect(logged()).toHaveLength(6);
  // What the CLI says of the same log.
  const state = box.stateJson();
  expect(state.rounds[0]).toMatchObject({ round: 1, resolved: 1, openEnd: 1 });
  expect(closed.next.state).toBe(state.state);
}

describe('gapflow mcp over stdio (a child process, the SDK client)', () => {
  it('lists at most eight tools, each with a description and input and output schemas, in under 4,000 tokens', { timeout: 60_000 }, async () => {
    await stdio();
    const { tools } = await client!.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['close_round', 'decide', 'move_gaps', 'next', 'open_gaps', 'start_round', 'sync']);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const tokens = Math.ceil(JSON.stringify({ tools }).length / 4);
    console.log(`tools/list: ${tools.length} tools, ${JSON.stringify({ tools }).length} characters, about ${tokens} tokens`);
    expect(tokens).toBeLessThan(4_000);
    // The schemas are the events': a severity is one of the log's words.
    const open = tools.find((tool) => tool.name === 'open_gaps')!;
    expect(JSON.stringify(open.inputSchema)).toContain('"enum":["CRITICAL","HIGH","MEDIUM","LOW","UNTRIAGED"]');
  });

  it('plays a round whose answers the log on disk agrees with, and status.md as a resource is what gapflow status writes', { timeout: 60_000 }, async () => {
    await stdio();
    await playRound();
    const resource = await client!.readResource({ uri: 'gapflow://status.md' });
    expect(box.gf('status', '--write').code).toBe(0);
    expect((resource.contents[0] as { text: string }).text).toBe(readFileSync(box.statusPath, 'utf8'));
    const state = await client!.readResource({ uri: 'gapflow://state.json' });
    expect(JSON.parse((state.contents[0] as { text: string }).text)).toEqual(box.stateJson());
  });

  it('a refused call is a tool error naming the bad value and writes nothing; "continue" is never an error', { timeout: 60_000 }, async () => {
    await stdio();
    const before = box.logBytes()!;
    const refused = await client!.callTool({ name: 'move_gaps', arguments: { moves: [{ id: 'NOPE-1', to: 'RESOLVED' }] } });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toBe('refused: request 1: gap.moved NOPE-1: unknown gap NOPE-1');
    const badWord = await client!.callTool({ name: 'open_gaps', arguments: { gaps: [{ id: 'X-1', severity: 'SEVERE' }] } });
    expect(badWord.isError).toBe(true);
    expect((badWord.content as { text: string }[])[0]!.text).toBe(
      'refused: open_gaps: gaps.0.severity: "SEVERE" is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED; nothing was written',
    );
    const typo = await client!.callTool({ name: 'move_gaps', arguments: { moves: [{ id: 'X-1', to: 'RESOLVD' }] } });
    expect((typo.content as { text: string }[])[0]!.text).toContain('(did you mean RESOLVED?)');
    const decide = await client!.callTool({ name: 'decide', arguments: { kind: 'approve' } });
    expect((decide.content as { text: string }[])[0]!.text).toBe(
      "refused: decide approve: no decision is due (next says continue); decisions are the user's, when the loop asks",
    );
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    const next = await client!.callTool({ name: 'next', arguments: {} });
    expect(next.isError).toBeFalsy();
    expect(next.structuredContent).toMatchObject({ action: 'continue' });
  });

  it('sees a CLI write on its next call, retries by request id record once, and tells a subscriber the log grew', { timeout: 60_000 }, async () => {
    await stdio();
    const updated = new Promise<string>((resolve) => client!.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => resolve(note.params.uri)));
    await client!.subscribeResource({ uri: 'gapflow://status.md' });
    expect(box.gf('gap', 'open', 'CLI-1', '--severity', 'MEDIUM').code).toBe(0);
    expect(await updated).toBe('gapflow://status.md');
    expect(await call<{ openGapCount: number }>('next')).toMatchObject({ openGapCount: 1 });
    const once = { gaps: [{ id: 'R-1', severity: 'LOW', title: 'retried' }], requestId: 'agent-7' };
    expect((await call<Written>('open_gaps', once)).recorded).toHaveLength(1);
    expect((await call<Written>('open_gaps', once)).recorded).toEqual([]);
    expect(logged().filter((event) => event.id === 'R-1')).toHaveLength(1);
    const stale = await client!.callTool({ name: 'open_gaps', arguments: { gaps: [{ id: 'S-1', severity: 'LOW' }], expectedVersion: 1 } });
    expect(stale.isError).toBe(true);
    expect(logged().some((event) => event.id === 'S-1')).toBe(false);
  });

  it('lists the decision prompt only while a decision is due, and decides only an option next offers', { timeout: 60_000 }, async () => {
    await stdio();
    expect((await client!.listPrompts()).prompts).toEqual([]);
    const listChanged = new Promise<void>((resolve) => client!.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()));
    await call('open_gaps', { gaps: [{ id: 'GAP-H1', severity: 'HIGH', title: 'Auth' }] });
    await call('start_round');
    await call<Written>('open_gaps', { gaps: [{ id: 'GAP-C1', severity: 'CRITICAL', title: 'Schema' }] });
    const closed = await call<Written>('close_round');
    expect(closed.next).toMatchObject({ action: 'ask_user', state: 'DIVERGENCE_WARNING' });
    await listChanged;
    expect((await client!.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['decision']);
    const prompt = await client!.getPrompt({ name: 'decision' });
    expect((prompt.messages[0]!.content as { text: string }).text).toBe(runCli(['prompt', '--dir', box.dir], { cwd: box.root }).stdout);
    const next = await call<{ options: { kind: string }[] }>('next');
    const offered = next.options.map((option) => option.kind);
    expect(offered).toContain('prioritize_critical');
    expect(offered).not.toContain('approve');
    const notOffered = await client!.callTool({ name: 'decide', arguments: { kind: 'approve', rationale: 'x' } });
    expect((notOffered.content as { text: string }[])[0]!.text).toBe(`refused: decide approve: not an option now; the options are ${offered.join(', ')}`);
    const decided = await call<Written>('decide', { kind: 'prioritize_critical' });
    expect(decided.recorded.map((event) => event.type)).toEqual(['decision.made']);
    expect(decided.next.state).toBe('CONVERGING');
    expect((await client!.listPrompts()).prompts).toEqual([]);
  });

  it("records a tool's findings through sync", { timeout: 60_000 }, async () => {
    await stdio();
    const findings = JSON.stringify([{ id: 'LINT-1', severity: 'HIGH', title: 'unused import' }]);
    runCli(['gap', 'open', 'HAND-1', '--severity', 'LOW', '--dir', box.dir], { cwd: box.root });
    writeFileSync(join(box.root, 'findings.json'), findings);
    const synced = await call<Written & { source: string; reported: number }>('sync', { file: 'findings.json', source: 'lint' });
    expect(synced).toMatchObject({ source: 'lint', reported: 1 });
    expect(synced.recorded.map((event) => event.type)).toEqual(['findings.synced', 'gap.opened']);
    // Only files under the folder it runs in: not the machine's.
    for (const file of ['/etc/passwd', '../outside.json']) {
      const refused = await client!.callTool({ name: 'sync', arguments: { file } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toContain('is not under the folder gapflow mcp runs in');
    }
    // Nor by a link planted in the folder; and a file that is not there is a tool error too.
    symlinkSync('/etc/hostname', join(box.root, 'planted.json'));
    const planted = await client!.callTool({ name: 'sync', arguments: { file: 'planted.json' } });
    expect((planted.content as { text: string }[])[0]!.text).toMatch(
      /^refused: \/.*\/planted\.json is not under .* \(links followed\): only files there are read$/,
    );
    const missing = await client!.callTool({ name: 'sync', arguments: { file: 'gone.sarif' } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/^refused: \/.*\/gone\.sarif: no such file$/);
  });
});

describe('gapflow mcp over Streamable HTTP on loopback', () => {
  it('plays a round through the SDK client at /mcp', { timeout: 60_000 }, async () => {
    const url = await httpServer();
    expect(url.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await connect(new StreamableHTTPClientTransport(url));
    await playRound();
  });

  it('answers a foreign Origin or Host with 403 and nothing else', { timeout: 60_000 }, async () => {
    const url = await httpServer();
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', reject);
        req.end(initialize);
      });
    expect(await post({ Origin: 'http://evil.example' })).toBe(403);
    expect(await post({ Host: 'evil.example' })).toBe(403);
    expect(await post({ Host: 'evil.example.com', Origin: 'http://evil.example.com' })).toBe(403);
    expect(await post({ Origin: `http://${url.host}` })).toBe(200);
  });

  it('off loopback it will not listen without a bearer token; with one, a request without it gets 401', { timeout: 60_000 }, async () => {
    const refused = spawnSync(process.execPath, [BIN, 'mcp', '--dir', box.dir, '--port', String(await freePort()), '--host', '0.0.0.0'], {
      cwd: box.root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^gapflow: refused: --host 0\.0\.0\.0 is not loopback: give a bearer token of at least 16 characters .*\n$/);
    const token = 'k7Qm2x9Vt4Lp8Zr1Ws6N';
    const url = await httpServer('--token', token);
    const bare = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(bare.status).toBe(401);
    await connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    expect(await call<{ action: string }>('next')).toMatchObject({ action: 'continue' });
  });
});

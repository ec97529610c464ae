import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Refusal } from '../core/index.js';
import { exposureNotice, isLoopback } from '../listen/index.js';
import { BATCH_INPUT, packageVersion, readTextFileUnder } from '../log/index.js';
import { gapflowMcp, type McpContext, serveMcpHttp } from '../mcp/index.js';
import type { BatchRequest, Session } from '../session/index.js';
import { type ParsedCall, UsageError } from './args.js';
import { type CliIO, open, statusAfterWrite, storeOf } from './common.js';
import { gatedBatch } from './gate.js';
import { listen, LOOPBACK, portOption } from './serve.js';
import type { MCP_FLAGS } from './table.js';

const { isAbsolute, relative, resolve } = process.getBuiltinModule('node:path');

/**
 * `gapflow mcp [--port P [--host H] [--token T]]`: the session as a Model
 * Context Protocol server (src/mcp), over stdio (the agent's harness starts
 * it), or over Streamable HTTP at http://127.0.0.1:P/mcp. Every tool call
 * opens the session afresh (another process's writes are seen) and writes
 * through the same path as `gapflow append`, the verification gate
 * included; status.md is rewritten after a write when the session asks.
 * Stays up until its client goes (stdio) or Ctrl-C.
 */
export async function mcp(call: ParsedCall<typeof MCP_FLAGS>, io: CliIO, stop: Promise<unknown>): Promise<void> {
  const { values } = call;
  const port = portOption(values.port);
  const host = values.host ?? LOOPBACK;
  if (port === undefined && (values.host !== undefined || values.token !== undefined)) throw new UsageError('--host and --token go with --port');
  if (host === '') throw new UsageError('--host needs an address to listen on');
  const token = values.token ?? io.env.GAPFLOW_MCP_TOKEN;
  if (port !== undefined && !isLoopback(host) && (token === undefined || token.length < 16)) {
    throw new Refusal(`--host ${host} is not loopback: give a bearer token of at least 16 characters (--token, or $GAPFLOW_MCP_TOKEN) that clients must send`);
  }
  if (!storeOf(values, io).exists()) throw new Refusal('no session here: start one with gapflow init (or name it with --dir, --store, --session)');
  const context = contextOf(values, io);
  const version = packageVersion() ?? 'unknown';
  if (port === undefined) return serveStdio(gapflowMcp(context, version), stop);
  // A token given is required, loopback or not.
  const http = serveMcpHttp(() => gapflowMcp(context, version), { token });
  try {
    await listen(http.server, port, host);
    const shown = host.includes(':') ? `[${host}]` : host;
    io.stdout(`http://${shown}:${port}/mcp\n`);
    const notice = exposureNotice({ address: host, port });
    if (notice !== null) io.stderr(`gapflow: ${notice}; MCP clients need the bearer token\n`);
    await stop;
  } finally {
    await http.close();
  }
}

/** Over stdio until the client closes its end, or Ctrl-C. Its stdout is the protocol's: nothing else is printed there. */
async function serveStdio(served: ReturnType<typeof gapflowMcp>, stop: Promise<unknown>): Promise<void> {
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolveEnd) => {
    process.stdin.once('end', resolveEnd);
    process.stdin.once('close', resolveEnd);
  });
  try {
    await served.server.connect(transport);
    await Promise.race([stop, ended]);
  } finally {
    served.close();
    await served.server.close();
  }
}

/**
 * A file a client names, under the folder the server runs in: a client over
 * HTTP is not to read the machine's files, even a line of one in an error.
 */
function inside(root: string, path: string): string {
  const full = resolve(root, path);
  const within = relative(root, full);
  if (within === '' || within.startsWith('..') || isAbsolute(within)) {
    throw new Refusal(`file ${JSON.stringify(path.slice(0, 200))} is not under the folder gapflow mcp runs in (${root}); name a file there`);
  }
  return full;
}

/** What a tool call works with, as the CLI gives it: the session named by the call's options, the CLI's write path, the caller's files. */
function contextOf(values: ParsedCall<typeof MCP_FLAGS>['values'], io: CliIO): McpContext {
  return {
    open: () => open(values, io),
    record: (session: Session, requests: BatchRequest[], write) => {
      const where = (i: number) => `request ${i + 1}`;
      const after = statusAfterWrite(true, values, io);
      const lines = requests.map((request, i) => ({ ...request, line: i + 1 }));
      try {
        // The check a completing write needs runs here as the CLI runs it; what it prints is not for stdout, the protocol's.
        const gated = gatedBatch(lines, { ...values, json: true }, io);
        const done = gated ? gated.record(where, write.expectSeq) : session.recordAll(requests, where, write);
        after?.(false);
        return { done, session: gated?.session ?? session };
      } catch (error) {
        after?.(true);
        throw error;
      }
    },
    readFile: (path) => ({ text: readTextFileUnder(io.cwd, inside(io.cwd, path), BATCH_INPUT), name: path }),
    root: io.cwd,
  };
}

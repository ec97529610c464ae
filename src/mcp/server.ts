import { McpServer, type RegisteredPrompt } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readIssue, wordsAt } from '../../events/index.js';
import { type SessionView, toStateJson } from '../core/index.js';
import { renderDecisions, renderPrompt, renderStatus } from '../render/index.js';
import type { Session } from '../session/index.js';
import { gapflowTools, type McpContext } from './tools.js';

/*
 * One MCP server over one session: the tools (tools.ts), the session's
 * documents as resources (rendered from the log when read, so always
 * current), and the decision prompt, listed only while a decision is due.
 * A client that subscribes to a resource is told when the log grows,
 * whoever wrote it (the session follows its store).
 */

/** The resources: status.md, decisions.md and the state JSON (`state --json`). */
export const RESOURCES = [
  {
    name: 'status',
    uri: 'gapflow://status.md',
    title: 'status.md',
    mimeType: 'text/markdown',
    description: 'The session: configuration, round table, history, gap inventory.',
  },
  {
    name: 'decisions',
    uri: 'gapflow://decisions.md',
    title: 'decisions.md',
    mimeType: 'text/markdown',
    description: "The user's decisions, each with its effect.",
  },
  {
    name: 'state',
    uri: 'gapflow://state.json',
    title: 'state.json',
    mimeType: 'application/json',
    description: 'The whole state, as gapflow state --json prints it.',
  },
] as const;

function render(uri: string, session: Session): string {
  const view = session.view;
  if (uri === 'gapflow://status.md') return renderStatus(view);
  if (uri === 'gapflow://decisions.md') return renderDecisions(view);
  return `${JSON.stringify(toStateJson(view), null, 2)}\n`;
}

/** What `gapflow mcp` serves on one connection; `close()` stops following the log. */
export interface GapflowMcp {
  server: McpServer;
  close(): void;
}

/** The MCP server for the session `context` opens, named by the package's version. */
export function gapflowMcp(context: McpContext, version: string): GapflowMcp {
  const server = new McpServer(
    { name: 'gapflow', version },
    {
      capabilities: { tools: {}, prompts: {}, resources: { subscribe: true, listChanged: true } },
      instructions:
        'gapflow referees this refinement loop. Call next first: it says whether to continue, ask the user or stop, and why. Record gaps and their moves as you work (open_gaps, move_gaps), close each round (close_round), and decide only what the user chose among the options next offers.',
    },
  );
  for (const resource of RESOURCES) {
    server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: resource.mimeType }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: resource.mimeType, text: render(resource.uri, context.open()) }],
    }));
  }
  const prompt = decisionPrompt(server, context);
  // The session a call last opened or wrote, so the prompt's check after it reads that view rather than opening the session again.
  let latest: Session | null = null;
  const tracked: McpContext = {
    ...context,
    open: () => (latest = context.open()),
    record: (session, requests, write) => {
      const done = context.record(session, requests, write);
      latest = done.session;
      return done;
    },
  };
  const tools: Record<
    string,
    { inputSchema: { safeParse: (input: unknown, params: { reportInput: boolean }) => ParseResult }; call: (args: never) => Promise<object> }
  > = gapflowTools(tracked);
  for (const [name, tool] of Object.entries(tools)) {
    const { call: _call, ...config } = tool as typeof tool & Record<string, unknown>;
    // Registered for its listing (name, description, schemas); its calls are answered below.
    server.registerTool(name, config as never, (() => ({ content: [] })) as never);
  }
  // Calls are read here, not by the SDK's own handler, so a bad argument is refused as the CLI refuses one:
  // the field, the value given, what it takes and the nearest word. After a call the decision prompt is listed
  // or not, as the loop now stands.
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool === undefined) return toolError(`no tool ${JSON.stringify(name)}; the tools are ${Object.keys(tools).join(', ')}`);
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {}, { reportInput: true });
    if (!parsed.success) {
      // A word's field is the event's: the words it takes, and the nearest to what was given.
      const words = (path: readonly PropertyKey[]) => (EVENT_OF[name] === undefined ? undefined : wordsAt(EVENT_OF[name], ['data', path.at(-1) ?? '']));
      return toolError(`refused: ${name}: ${readIssue(parsed.error as never, { words }).message}; nothing was written`);
    }
    latest = null;
    const result = await tool.call(parsed.data as never);
    // Set by the call (tracked above): what it opened or wrote last.
    const seen = latest as Session | null;
    prompt.refresh(seen?.view);
    return result as never;
  });
  const subscribed = new Set<string>();
  let stopFollowing: (() => void) | null = null;
  const grew = () => {
    prompt.refresh();
    for (const uri of subscribed) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  };
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscribed.add(request.params.uri);
    // Whoever appends (this server, the CLI, another agent), subscribers hear of it.
    stopFollowing ??= followGrowth(context.open(), grew);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return {
    server,
    close: () => {
      stopFollowing?.();
      stopFollowing = null;
    },
  };
}

/** The event each writing tool's items are the data of. */
const EVENT_OF: Record<string, string | undefined> = {
  open_gaps: 'gap.opened',
  move_gaps: 'gap.moved',
  start_round: 'round.started',
  decide: 'decision.made',
  sync: 'findings.synced',
};

type ParseResult = { success: true; data: unknown } | { success: false; error: unknown };

/** A tool error: its one text, no structured content (a client checks any against the answer's schema). */
function toolError(text: string) {
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

/** Calls `grew` whenever the session's log gains lines; returns the stop. */
function followGrowth(session: Session, grew: () => void): () => void {
  const unsubscribe = session.subscribe(() => grew());
  const stop = session.follow();
  return () => {
    unsubscribe();
    stop();
  };
}

/** The decision prompt (`gapflow prompt`), listed only while a decision is due; `refresh` looks again, at `view` when the caller has it. */
function decisionPrompt(server: McpServer, context: McpContext): { refresh(view?: SessionView): void } {
  const registered: RegisteredPrompt = server.registerPrompt(
    'decision',
    {
      title: 'The decision due',
      description: "The user's options now that the loop asks: what each does, which is recommended, and the decide call that records it.",
    },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: renderPrompt(context.open().view) ?? 'No decision is due: the loop goes on.' } }] }),
  );
  const refresh = (view?: SessionView) => {
    const due = renderPrompt(view ?? context.open().view) !== null;
    if (due && !registered.enabled) registered.enable();
    else if (!due && registered.enabled) registered.disable();
  };
  refresh();
  return { refresh };
}

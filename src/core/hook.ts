import type { BodyInputOf } from '../../events/index.js';
import { loopStep, standingStopRequest, type StopRequest } from './loop.js';
import type { SessionView } from './view.js';

/** What an agent's stop hook tells gapflow: who wants to stop, and whether a hook already made it go on. */
export interface HookCall {
  agentSession: string;
  event: 'Stop' | 'SubagentStop';
  /**
   * The agent is already going on because a stop hook blocked it (Claude
   * Code's `stop_hook_active`; where a harness sends none, the edge's count).
   */
  stopHookActive: boolean;
  /** The harness says the user ended this turn (Cursor's `status`: `aborted`, `error`): it is never pushed on. */
  userStopped?: boolean;
}

export interface HookContext {
  /** Blocks in a row this agent has had before this call (kept at the edge). */
  blocks: number;
  /** The most blocks in a row before the agent is let stop anyway. */
  maxBlocks: number;
  stopRequest?: StopRequest | undefined;
}

export type HookRule =
  | 'no_session'
  | 'foreign_session'
  | 'user_stopped'
  | 'redirect'
  | 'stop_requested'
  | 'complete'
  | 'ask_user'
  | 'paused'
  | 'block_cap'
  | 'continue';

/** Whether the agent goes on or stops, by which rule; the words for it are the renderer's (render's hookVerdict). */
export interface HookDecision {
  block: boolean;
  rule: HookRule;
  /** Blocks in a row after this call, to keep for the next one. */
  blocks: number;
  /** Bind the session to this agent session before answering (it was unbound). */
  bind: boolean;
}

/**
 * Whether an agent that wants to stop should go on (block) or stop, in this
 * order: a session bound to another agent, or none at all, is not this
 * hook's business; then a turn the user ended, redirect requested, stop
 * requested, COMPLETE, a decision due (DIVERGENCE_WARNING) or PAUSED let it
 * stop; CONVERGING and FLAT block, up to `maxBlocks` blocks in a row.
 */
export function hookDecision(view: SessionView | null, call: HookCall, context: HookContext): HookDecision {
  const allow = (rule: HookRule, blocks = 0): HookDecision => ({ block: false, rule, blocks, bind: false });
  if (view === null) return allow('no_session', context.blocks);
  const bound = view.agentSession;
  if (bound !== null && bound !== call.agentSession) return allow('foreign_session', context.blocks);
  const decision = ownSessionDecision(view, call, context, allow);
  // A paused or finished session takes no binding; the next live call binds it.
  return { ...decision, bind: bound === null && view.machine.state !== 'COMPLETE' && view.machine.state !== 'PAUSED' };
}

function ownSessionDecision(view: SessionView, call: HookCall, context: HookContext, allow: (rule: HookRule, blocks?: number) => HookDecision): HookDecision {
  if (call.userStopped) return allow('user_stopped');
  if (context.stopRequest?.kind === 'redirect') return allow('redirect');
  if (context.stopRequest?.kind === 'stop') return allow('stop_requested');
  const step = loopStep(view);
  if (step.state === 'COMPLETE') return allow('complete');
  if (step.state === 'DIVERGENCE_WARNING') return allow('ask_user');
  if (step.state === 'PAUSED') return allow('paused');
  const blocks = call.stopHookActive ? context.blocks + 1 : 1;
  if (blocks > context.maxBlocks) return allow('block_cap');
  return { block: true, rule: 'continue', blocks, bind: false };
}

/** What one stop-hook call does, decided on one view. */
export interface HookStep {
  decision: HookDecision;
  /** The view and the context it was decided on, which its words are drawn from. */
  view: SessionView;
  context: HookContext;
  /** The binding to record, held to the view it was decided on (another writer first: decide again); null: none. */
  record: BodyInputOf<'session.bound'> | null;
  /** The blocks in a row to keep for the next call; null: unchanged. */
  blocks: number | null;
}

/**
 * The stop hook's whole rule on one view: the decision (with the agent's own
 * standing stop or redirect request), whether to bind the session to this
 * agent session, and the block count to keep. The edge reads and keeps the
 * count and records the binding (see the session's `recordDecided`).
 */
export function hookStep(view: SessionView, call: HookCall, context: Omit<HookContext, 'stopRequest'>): HookStep {
  const full = { ...context, stopRequest: standingStopRequest(view) };
  const decision = hookDecision(view, call, full);
  return {
    decision,
    view,
    context: full,
    record: decision.bind ? { type: 'session.bound', data: { agentSession: call.agentSession } } : null,
    blocks: decision.blocks === context.blocks ? null : decision.blocks,
  };
}

import type { BodyInputOf, Severity } from '../../events/index.js';
import { loopStep, standingStopRequest, type LoopStep, type StopRequest } from './loop.js';
import { formatCount } from '../policies/index.js';
import { metricPoliciesOf, missingMetrics, tracksGaps } from './policies.js';
import { SEVERITIES } from './rules.js';
import type { SessionView } from './view.js';

/** What an agent's stop hook tells gapflow: who wants to stop, and whether a hook already made it go on. */
export interface HookCall {
  agentSession: string;
  event: 'Stop' | 'SubagentStop';
  /** The agent is already going on because a stop hook blocked it (Claude Code's `stop_hook_active`). */
  stopHookActive: boolean;
}

export interface HookContext {
  /** Blocks in a row this agent has had before this call (kept at the edge). */
  blocks: number;
  /** The most blocks in a row before the agent is let stop anyway. */
  maxBlocks: number;
  stopRequest?: StopRequest | undefined;
  /** The decision prompt when one is due, rendered at the edge. */
  prompt?: string | null | undefined;
}

export type HookRule =
  | 'no_session'
  | 'foreign_session'
  | 'redirect'
  | 'stop_requested'
  | 'complete'
  | 'ask_user'
  | 'paused'
  | 'block_cap'
  | 'continue';

export interface HookVerdict {
  block: boolean;
  rule: HookRule;
  /** For the agent when it is blocked: what to do next. Otherwise why it may stop. */
  reason: string;
  /** Put in front of the user (Claude Code's `systemMessage`); null: nothing to say. */
  systemMessage: string | null;
  /** Blocks in a row after this call, to keep for the next one. */
  blocks: number;
  /** Bind the session to this agent session before answering (it was unbound). */
  bind: boolean;
}

const LIST_AT_MOST = 8;

/**
 * Whether an agent that wants to stop should go on (block) or stop, in seed
 * 001's order: a session bound to another agent, or none at all, is not this
 * hook's business; then redirect requested, stop requested, COMPLETE, a
 * decision due (DIVERGENCE_WARNING) or PAUSED let it stop; CONVERGING and FLAT
 * block with what to do next, up to `maxBlocks` blocks in a row.
 */
export function hookDecision(view: SessionView | null, call: HookCall, context: HookContext): HookVerdict {
  const allow = (rule: HookRule, reason: string, systemMessage: string | null, blocks = 0): HookVerdict => ({
    block: false,
    rule,
    reason,
    systemMessage,
    blocks,
    bind: false,
  });
  if (view === null) return allow('no_session', 'no gapflow session here', null, context.blocks);
  const bound = view.agentSession;
  if (bound !== null && bound !== call.agentSession) {
    return allow('foreign_session', `the session is bound to agent session ${bound}, not ${call.agentSession}`, null, context.blocks);
  }
  const verdict = decideForOwnSession(view, call, context, allow);
  // A paused or finished session takes no binding; the next live call binds it.
  return { ...verdict, bind: bound === null && view.machine.state !== 'COMPLETE' && view.machine.state !== 'PAUSED' };
}

/** What one stop-hook call does, decided on one view. */
export interface HookStep {
  verdict: HookVerdict;
  /** The binding to record, held to the view it was decided on (another writer first: decide again); null: none. */
  record: BodyInputOf<'session.bound'> | null;
  /** The blocks in a row to keep for the next call; null: unchanged. */
  blocks: number | null;
}

/**
 * The stop hook's whole rule on one view: the verdict (with the agent's own
 * standing stop or redirect request), whether to bind the session to this
 * agent session, and the block count to keep. The edge reads and keeps the
 * count and records the binding (see the session's `recordDecided`).
 */
export function hookStep(view: SessionView, call: HookCall, context: Omit<HookContext, 'stopRequest'>): HookStep {
  const verdict = hookDecision(view, call, { ...context, stopRequest: standingStopRequest(view) });
  return {
    verdict,
    record: verdict.bind ? { type: 'session.bound', data: { agentSession: call.agentSession } } : null,
    blocks: verdict.blocks === context.blocks ? null : verdict.blocks,
  };
}

type Allow = (rule: HookRule, reason: string, systemMessage: string | null, blocks?: number) => HookVerdict;

function decideForOwnSession(view: SessionView, call: HookCall, context: HookContext, allow: Allow): HookVerdict {
  const request = context.stopRequest;
  if (request?.kind === 'redirect') {
    return allow('redirect', `redirect requested: ${request.reason}`, `gapflow: redirect requested (${request.reason}); the agent may stop for it.`);
  }
  if (request?.kind === 'stop') {
    return allow('stop_requested', `stop requested: ${request.reason}`, `gapflow: stop requested (${request.reason}); the loop stops here.`);
  }
  const step = loopStep(view);
  switch (step.state) {
    case 'COMPLETE':
      return allow('complete', step.reason, `gapflow: ${step.reason}.`);
    case 'DIVERGENCE_WARNING':
      return allow('ask_user', step.reason, context.prompt ?? `gapflow: ${step.reason}`);
    case 'PAUSED':
      return allow('paused', step.reason, `gapflow: ${step.reason} (gapflow decide resume).`);
    default: {
      const blocks = call.stopHookActive ? context.blocks + 1 : 1;
      if (blocks > context.maxBlocks) {
        return allow(
          'block_cap',
          `blocked ${context.blocks} times in a row; the cap is ${context.maxBlocks}`,
          `gapflow: the loop is still ${step.state}, but it has kept the agent going ${context.blocks} times in a row (the cap, --max-blocks ${context.maxBlocks}), so it lets it stop. ${step.reason}.`,
        );
      }
      return { block: true, rule: 'continue', reason: blockReason(view, step, blocks, context.maxBlocks), systemMessage: null, blocks, bind: false };
    }
  }
}

/** What the agent reads when it is kept going: the state, the next move, the focus and the open gaps. */
function blockReason(view: SessionView, step: LoopStep, blocks: number, maxBlocks: number): string {
  const next = step.round + 1;
  // While the round is open, only the policies that have not recorded for it yet.
  const metrics = view.roundOpen ? missingMetrics(view, next) : metricPoliciesOf(view.policies.enabled).map((p) => p.name);
  if (!tracksGaps(view)) {
    const lines = [
      `gapflow: the refinement loop is ${step.state}, so keep going. Next: ${step.reason}. Record each iteration with gapflow record POLICY … (gapflow check --verbose shows where each policy stands).`,
    ];
    if (step.state === 'FLAT') lines.push(flatLine(view));
    lines.push(`(Block ${blocks} of at most ${maxBlocks} in a row.)`);
    return lines.join('\n');
  }
  const lines = [
    step.roundOpen
      ? `gapflow: the refinement loop is ${step.state} and round ${next} is open, so keep going. Work on the open gaps below, record each change (gapflow gap move ID STATE; gapflow gap open ID --severity S for a new one), then close the round (gapflow round close).`
      : `gapflow: the refinement loop is ${step.state}, so keep going. Start round ${next} (gapflow round start), work on the open gaps below, recording each change, then close it (gapflow round close).`,
  ];
  if (metrics.length > 0) lines.push(`Before closing the round, record ${metrics.join(', ')} for it (gapflow record ${metrics[0]} …).`);
  if (step.state === 'FLAT') lines.push(flatLine(view));
  if (step.focus.length > 0) lines.push(`Focus first on the CRITICAL gaps the user prioritized: ${step.focus.join(', ')}.`);
  lines.push(`Open gaps (${formatCount(step.openGapCount)}, weighted ${formatCount(step.weightedOpen)}): ${gapList(step.openGaps)}.`);
  lines.push(`(Block ${blocks} of at most ${maxBlocks} in a row.)`);
  return lines.join('\n');
}

function flatLine(view: SessionView): string {
  return `The last round made no net progress (${view.machine.flatCount} of ${view.config.stallThreshold} flat rounds before a stall): change the approach rather than repeating it.`;
}

function gapList(openGaps: Record<Severity, string[]>): string {
  const parts = SEVERITIES.filter((s) => openGaps[s].length > 0).map((s) => {
    const ids = openGaps[s];
    const shown = ids.slice(0, LIST_AT_MOST).join(', ');
    return `${s} ${shown}${ids.length > LIST_AT_MOST ? ` and ${ids.length - LIST_AT_MOST} more` : ''}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'none in an open state';
}

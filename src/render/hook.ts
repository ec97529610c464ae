import type { Severity } from '../../events/index.js';
import { type HookCall, type HookContext, type HookDecision, loopStep, type LoopStep, metricPoliciesOf, missingMetrics, tracksGaps, SEVERITIES, type SessionView } from '../core/lean.js';
import { formatCount } from '../policies/lean.js';
import { renderPrompt } from './prompt.js';

/** A stop hook's decision with its words: what the agent reads, and what the user is shown. */
export interface HookVerdict extends HookDecision {
  /** For the agent when it is blocked: what to do next. Otherwise why it may stop. */
  reason: string;
  /** Put in front of the user (Claude Code's `systemMessage`); null: nothing to say. */
  systemMessage: string | null;
}

const LIST_AT_MOST = 8;

/** The words for a stop hook's decision, drawn from the view and context it was decided on. */
export function hookVerdict(view: SessionView | null, call: HookCall, context: HookContext, decision: HookDecision): HookVerdict {
  const say = (reason: string, systemMessage: string | null = null): HookVerdict => ({ ...decision, reason, systemMessage });
  if (view === null) return say('no gapflow session here');
  if (decision.rule === 'foreign_session') return say(`the session is bound to agent session ${view.agentSession ?? ''}, not ${call.agentSession}`);
  const request = context.stopRequest;
  if (decision.rule === 'redirect') return say(`redirect requested: ${request?.reason ?? ''}`, `gapflow: redirect requested (${request?.reason ?? ''}); the agent may stop for it.`);
  if (decision.rule === 'stop_requested') return say(`stop requested: ${request?.reason ?? ''}`, `gapflow: stop requested (${request?.reason ?? ''}); the loop stops here.`);
  const step = loopStep(view);
  switch (decision.rule) {
    case 'complete':
      return say(step.reason, `gapflow: ${step.reason}.`);
    case 'ask_user':
      return say(step.reason, renderPrompt(view) ?? `gapflow: ${step.reason}`);
    case 'paused':
      return say(step.reason, `gapflow: ${step.reason} (gapflow decide resume).`);
    case 'block_cap':
      return say(
        `blocked ${context.blocks} times in a row; the cap is ${context.maxBlocks}`,
        `gapflow: the loop is still ${step.state}, but it has kept the agent going ${context.blocks} times in a row (the cap, --max-blocks ${context.maxBlocks}), so it lets it stop. ${step.reason}.`,
      );
    default:
      return say(blockReason(view, step, decision.blocks, context.maxBlocks));
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

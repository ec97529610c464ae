import {
  type HookCall,
  type HookContext,
  type HookDecision,
  loopStep,
  type LoopStep,
  metricPoliciesOf,
  missingMetrics,
  tracksGaps,
  SEVERITIES,
  type SessionView,
} from '../core/index.js';
import { formatCount } from '../policies/index.js';
import { clip, fitLines, itemList, type ItemList, type Line } from './fit.js';
import { focusIsChosen } from './focus.js';
import { renderPrompt } from './prompt.js';
import { counted } from './counted.js';
import { asData, dataFence, dataNote } from './fence.js';

/** A stop hook's decision with its words: what the agent reads, and what the user is shown. */
export interface HookVerdict extends HookDecision {
  /** For the agent when it is blocked: what to do next. Otherwise why it may stop. */
  reason: string;
  /** Put in front of the user (Claude Code's `systemMessage`); null: nothing to say. */
  systemMessage: string | null;
}

/**
 * Claude Code's limit on a string a hook hands back (characters): past it,
 * the agent and the user get a 2 KB preview and a file path instead
 * (https://code.claude.com/docs/en/hooks).
 */
export const HOOK_TEXT_CAP = 10_000;

/**
 * What one string of a hook's answer may take, counted as its JSON encoding
 * (escapes and quotes included), so that the whole answer line, the string
 * and the few characters around it, stays under HOOK_TEXT_CAP.
 */
export const HOOK_TEXT_BUDGET = 9_000;

/** How many gaps a block reason lists (open ones, the focus) before "+N more", however much room is left. */
const GAPS_LISTED = 25;
/** The longest title a block reason shows of a gap (titles may run to 500 characters). */
const TITLE_SHOWN = 100;

/** The words for a stop hook's decision, drawn from the view and context it was decided on; every string fits HOOK_TEXT_BUDGET. */
export function hookVerdict(view: SessionView | null, call: HookCall, context: HookContext, decision: HookDecision): HookVerdict {
  const say = (reason: string, systemMessage: string | null = null): HookVerdict => ({
    ...decision,
    reason: fitted(reason),
    systemMessage: systemMessage === null ? null : fitted(systemMessage),
  });
  if (view === null) return say('no gapflow session here');
  if (decision.rule === 'foreign_session') return say(`the session is bound to agent session ${view.agentSession ?? ''}, not ${call.agentSession}`);
  const request = context.stopRequest;
  if (decision.rule === 'user_stopped') return say('the user ended this turn');
  if (decision.rule === 'redirect')
    return say(`redirect requested: ${request?.reason ?? ''}`, `gapflow: redirect requested (${request?.reason ?? ''}); the agent may stop for it.`);
  if (decision.rule === 'stop_requested')
    return say(`stop requested: ${request?.reason ?? ''}`, `gapflow: stop requested (${request?.reason ?? ''}); the loop stops here.`);
  const step = loopStep(view);
  switch (decision.rule) {
    case 'complete':
      return say(step.reason, `gapflow: ${step.reason}.`);
    case 'ask_user':
      return say(step.reason, hookPrompt(view) ?? `gapflow: ${step.reason}`);
    case 'paused':
      return say(step.reason, `gapflow: ${step.reason} (gapflow decide resume).`);
    case 'block_cap':
      return say(
        `blocked ${context.blocks} times in a row; the cap is ${context.maxBlocks}`,
        `gapflow: the loop is still ${step.state}, but it has kept the agent going ${context.blocks} times in a row (the cap, --max-blocks ${context.maxBlocks}), so it lets it stop. ${step.reason}.`,
      );
    default:
      return { ...decision, reason: blockReason(view, step, decision.blocks, context.maxBlocks), systemMessage: null };
  }
}

/** A text of one piece, held to the budget (a reason the agent gave may be long). */
function fitted(text: string): string {
  return fitLines([[text]], HOOK_TEXT_BUDGET).text;
}

/** What the agent reads when it is kept going: the state, the next move, the focus and the open gaps with their titles. */
function blockReason(view: SessionView, step: LoopStep, blocks: number, maxBlocks: number): string {
  const next = step.round + 1;
  // While the round is open, only the policies that have not recorded for it yet.
  const metrics = view.roundOpen ? missingMetrics(view, next) : metricPoliciesOf(view.policies.enabled).map((p) => p.name);
  const count: Line = [`(Block ${blocks} of at most ${maxBlocks} in a row.)`];
  if (!tracksGaps(view)) {
    const lines: Line[] = [
      [
        `gapflow: the refinement loop is ${step.state}, so keep going. Next: ${step.reason}. Record each iteration with gapflow record POLICY … (gapflow check --verbose shows where each policy stands).`,
      ],
    ];
    if (step.state === 'FLAT') lines.push([flatLine(view)]);
    lines.push(count);
    return fitLines(lines, HOOK_TEXT_BUDGET).text;
  }
  const lines: Line[] = [
    [
      step.roundOpen
        ? `gapflow: the refinement loop is ${step.state} and round ${next} is open, so keep going. Work on the open gaps below, record each change (gapflow gap move ID STATE; gapflow gap open ID --severity S for a new one), then close the round (gapflow round close).`
        : `gapflow: the refinement loop is ${step.state}, so keep going. Start round ${next} (gapflow round start), work on the open gaps below, recording each change, then close it (gapflow round close).`,
    ],
  ];
  if (metrics.length > 0) lines.push([`Before closing the round, record ${metrics.join(', ')} for it (gapflow record ${metrics[0]} …).`]);
  if (step.state === 'FLAT') lines.push([flatLine(view)]);
  if (step.lastRound) lines.push([lastRoundLine(step)]);
  const focus = focusIsChosen(view) ? 'the gaps the user prioritized' : 'the CRITICAL gaps the user prioritized';
  if (step.focus.length > 0) lines.push([`Focus first on ${focus}: `, itemList(step.focus, ', ', undefined, GAPS_LISTED), '.']);
  if (step.claimedStillReported.length > 0) {
    lines.push([
      'Claimed but still reported: ',
      itemList(step.claimedStillReported, ', ', undefined, GAPS_LISTED),
      ". They were closed as fixed by hand, but the tool's latest snapshot still reports them, so they are open again: fix them for real.",
    ]);
  }
  const open = SEVERITIES.flatMap((severity) => step.openGaps[severity].map((id) => gapLine(view, severity, id)));
  const counts = `Open gaps (${formatCount(step.openGapCount)}, weighted ${formatCount(step.weightedOpen)})`;
  if (open.length === 0) lines.push([`${counts}: none in an open state.`]);
  else {
    // The titles are anyone's words: fenced as data, so the agent reads them as the gaps' names, not as orders.
    const fence = dataFence();
    lines.push([`${counts}, most severe first ${dataNote('titles')}:`], [fence.open]);
    // `openGaps` names the first of them only; the ones beyond it are counted with the ones left out here.
    const more = (n: number) => `\n- +${formatCount(n + step.openGapsNotListed)} more (gapflow status --all lists every gap)`;
    lines.push([itemList(open, '\n', more, GAPS_LISTED)], [fence.close]);
  }
  lines.push(count);
  return fitLines(lines, HOOK_TEXT_BUDGET).text;
}

function gapLine(view: SessionView, severity: string, id: string): string {
  const title = view.gaps.get(id)?.title ?? '';
  return `- ${severity} ${id}${title === '' ? '' : `: ${clip(asData(title), TITLE_SHOWN)}`}`;
}

/** R24: the round the agent works in now is the last the limit allows, and what would allow more. */
function lastRoundLine(step: LoopStep): string {
  return `Round ${step.round + 1} is the last: closing it ends the session at max_rounds (${step.maxRounds ?? ''}). If more rounds are needed, ask the user to extend the limit (gapflow decide extend-rounds N).`;
}

function flatLine(view: SessionView): string {
  return `The last round made no net progress (${view.machine.flatCount} of ${counted(view.config.stallThreshold, 'flat round')} before a stall): change the approach rather than repeating it.`;
}

const SECTION = /^=== .+ ===$/;
const OPTIONS = '=== Options ===';
/** A run of comma-separated ids (four or more), as the prompt lists gaps inside a line. */
const ID_RUN = /[A-Za-z0-9][A-Za-z0-9._-]*(?:, ?[A-Za-z0-9][A-Za-z0-9._-]*){3,}/g;
const LIST_ITEM = /^(\s+)- /;
/** The longest line of a list the prompt shows in Claude Code, and the most items of a list it shows (the rest: "+N more"). */
const LINE_SHOWN = 200;
const LIST_SHOWN = 20;
const SHORTENED = '(Long lists are cut short here, to fit Claude Code; gapflow prompt prints the whole prompt.)';

/**
 * The decision prompt as the user sees it in Claude Code: the options
 * first (after the state lines), then the analysis; a list shows at most
 * LIST_SHOWN items, and fewer, the longest lists first, when the whole
 * would pass the budget, the rest said as "+N more".
 */
function hookPrompt(view: SessionView): string | null {
  const prompt = renderPrompt(view);
  if (prompt === null) return null;
  const sections: string[][] = [[]];
  for (const line of prompt.split('\n')) {
    if (SECTION.test(line)) sections.push([line]);
    else sections.at(-1)!.push(line);
  }
  // Sections are parted by one blank line; the text ends with a newline.
  for (const section of sections) while (section.at(-1) === '') section.pop();
  const options = sections.findIndex((s) => s[0] === OPTIONS);
  const ordered = options > 0 ? [sections[0]!, sections[options]!, ...sections.filter((_, i) => i !== 0 && i !== options)] : sections;
  const fit = fitLines(listsOf(ordered.flatMap((s, i) => (i === 0 ? s : ['', ...s]))), HOOK_TEXT_BUDGET - SHORTENED.length - 4);
  return `${fit.text}\n${fit.cut ? `${SHORTENED}\n` : ''}`;
}

/** The prompt's lines with their lists marked: runs of "  - item" lines, and runs of ids inside a line. */
function listsOf(lines: readonly string[]): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < lines.length; ) {
    const indent = LIST_ITEM.exec(lines[i]!)?.[1];
    if (indent === undefined) {
      out.push(inlineLists(lines[i]!));
      i += 1;
      continue;
    }
    let end = i;
    while (end < lines.length && LIST_ITEM.test(lines[end]!)) end += 1;
    // A gap's line carries its title (up to 500 characters): the message shows its start.
    out.push([
      itemList(
        lines.slice(i, end).map((line) => clip(line, LINE_SHOWN)),
        '\n',
        (n) => `\n${indent}- +${n} more`,
        LIST_SHOWN,
      ),
    ]);
    i = end;
  }
  return out;
}

function inlineLists(line: string): Line {
  const parts: (string | ItemList)[] = [];
  let at = 0;
  for (const match of line.matchAll(ID_RUN)) {
    const run = match[0];
    const separator = run.includes(', ') ? ', ' : ',';
    const items = run.split(separator);
    // Only a run joined one way throughout is a list; anything else stays text as it is.
    if (items.join(separator) !== run || items.some((item) => item.includes(','))) continue;
    parts.push(line.slice(at, match.index), itemList(items, separator, undefined, LIST_SHOWN));
    at = match.index + run.length;
  }
  parts.push(line.slice(at));
  return parts;
}

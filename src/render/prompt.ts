import type { GapState, Severity } from '../../events/index.js';
import {
  decisionOptions,
  isOpen,
  lastClosedRound,
  soleNarrator,
  standingCauses,
  tracksGaps,
  SEVERITIES,
  STATE_CLASS,
  type RoundFigures,
  type SessionView,
} from '../core/index.js';
import { formatCount, signed, belowDivergence } from '../policies/index.js';
import { deferralGround, optionEntries } from './options.js';
import { disagreementNote, netsDisagree } from './sections.js';
import { counted } from './counted.js';
import { sessionRemainingIssues } from './remaining.js';
import { asData, dataFence, dataNote } from './fence.js';

type Trigger = 'critical' | 'divergence' | 'stall';

/** What led the last round into DIVERGENCE_WARNING: the history the machine wrote, and the verdict's reason code. */
function triggerOf(view: SessionView, round: RoundFigures): Trigger {
  const steps = view.history.filter((h) => h.cause === 'round' && h.round === round.round);
  if (steps.some((h) => h.to === 'STALLED')) return 'stall';
  return round.combined?.reason === 'critical_introduced' ? 'critical' : 'divergence';
}

function thisRound(round: RoundFigures): string[] {
  const lines = [`Resolved: ${counted(round.resolved, 'gap')} (weighted: ${round.weightedResolved})`];
  for (const g of round.resolvedGaps) lines.push(`  - ${g.id} (${g.severity}, weight ${g.weight}) -> ${g.to}`);
  const newLines = round.newGaps.map((g) => {
    const tag = g.reopened ? '[REOPENED]' : '[NEW]';
    const title = asData(g.title);
    const about = g.spawnedBy ? `Spawned by ${g.spawnedBy}${title ? `: ${title}` : ''}` : title;
    return `  - ${g.id} (${g.severity}, weight ${g.weight}) ${tag}${about ? ` - ${about}` : ''}`;
  });
  const heading = `New: ${counted(round.new, 'gap')} (weighted: ${round.weightedNew})`;
  // Titles are anyone's words: a list that shows some is fenced as data (fence.ts).
  if (round.newGaps.some((g) => g.title !== '')) {
    const fence = dataFence('  ');
    lines.push('', `${heading} ${dataNote('titles')}`, fence.open, ...newLines, fence.close);
  } else lines.push('', heading, ...newLines);
  if (round.withdrawn > 0) {
    lines.push('', `Withdrawn as duplicates: ${counted(round.withdrawn, 'gap')} (weighted: ${round.weightedWithdrawn}; neither resolved nor new)`);
    for (const g of round.withdrawnGaps) lines.push(`  - ${g.id} (${g.severity}, weight ${g.weight}) duplicate of ${g.of}`);
  }
  if (round.splits.length > 0) {
    lines.push('', 'Splits (parts beyond the first count as new):');
    for (const c of round.splits) {
      const effect = c.delta > 0 ? `weighted new +${c.delta}` : c.delta < 0 ? `weighted resolved +${-c.delta}` : 'same weight';
      lines.push(`  - ${c.id} split into ${c.into.join(', ')} (${effect})`);
    }
  }
  if (round.severityChanges.length > 0) {
    lines.push('', 'Severity changes:');
    for (const c of round.severityChanges) {
      const effect = c.delta > 0 ? `weighted new +${c.delta}` : `weighted resolved +${-c.delta}`;
      lines.push(`  - ${c.id} ${c.from} -> ${c.to} (${effect})`);
    }
  }
  return lines;
}

function progress(view: SessionView, round: RoundFigures, trigger: Trigger): string[] {
  const marker = belowDivergence(round.weightedNet, view.config)
    ? ' <-- DIVERGENCE TRIGGER'
    : trigger === 'stall'
      ? ` <-- STALL (${counted(view.config.stallThreshold, 'flat round')})`
      : ' <-- CRITICAL OVERRIDE';
  const lines = [
    `Unweighted Net: ${signed(round.unweightedNet)} (${round.resolved} resolved, ${round.new} new)`,
    `Weighted Net: ${signed(round.weightedNet)} (resolved ${round.weightedResolved}, new ${round.weightedNew})${marker}`,
  ];
  if (netsDisagree(round)) lines.push(disagreementNote(round));
  return lines;
}

function causes(view: SessionView, round: RoundFigures, trigger: Trigger): string[] {
  const { divergenceThreshold, stallThreshold } = view.config;
  const primary = {
    critical: `PRIMARY: CRITICAL gap introduced (${round.criticalIntroduced.join(', ')})`,
    divergence: `PRIMARY: Weighted net ${signed(round.weightedNet)} is below -${divergenceThreshold} (divergence threshold)`,
    stall: `PRIMARY: No net progress for ${counted(stallThreshold, 'consecutive round')}`,
  }[trigger];
  const secondary: string[] = [];
  if (trigger !== 'divergence' && belowDivergence(round.weightedNet, view.config)) {
    secondary.push(`Weighted net ${signed(round.weightedNet)} is also below -${divergenceThreshold}`);
  }
  const spawned = new Map<string, number>();
  for (const g of round.newGaps) if (g.spawnedBy) spawned.set(g.spawnedBy, (spawned.get(g.spawnedBy) ?? 0) + 1);
  for (const [parent, count] of spawned) {
    secondary.push(`${count > 1 ? 'Complex gap' : 'Gap'} (${parent}) spawned ${count} sub-gap${count > 1 ? 's' : ''}`);
  }
  const reopened = round.newGaps.filter((g) => g.reopened).map((g) => g.id);
  if (reopened.length > 0) secondary.push(`Reopened: ${reopened.join(', ')}`);
  for (const c of round.severityChanges.filter((c) => c.delta > 0)) secondary.push(`${c.id} escalated ${c.from} -> ${c.to}`);
  if (round.resolved === 0) secondary.push('No gap was resolved this round');
  secondary.push(...standingCauses(view));
  const lines = [primary, ...secondary.map((s) => `SECONDARY: ${s}`)];
  if (trigger === 'stall') {
    lines.push(
      'Possible causes:',
      '- Remaining gaps may be interdependent',
      '- Engineer may be stuck without additional context',
      '- Scope may need narrowing',
    );
  }
  return lines;
}

const INVENTORY_ROWS: readonly [string, GapState][] = [
  ['Open', 'OPEN'],
  ['In Progress', 'IN_PROGRESS'],
  ['Blocked', 'BLOCKED'],
  ['Proposed', 'PROPOSED'],
  ['Needs Revision', 'NEEDS_REVISION'],
];

function inventoryLines(view: SessionView): string[] {
  const gaps = [...view.gaps.values()];
  const lines = INVENTORY_ROWS.map(([label, state]) => {
    const inState = gaps.filter((g) => g.state === state);
    if (inState.length === 0) return `${label}: 0`;
    // UNTRIAGED is named only where there are some: a session that never uses it reads as it always did.
    const bySeverity = SEVERITIES.map((s: Severity) => [s, inState.filter((g) => g.severity === s).length] as const).filter(
      ([s, n]) => s !== 'UNTRIAGED' || n > 0,
    );
    return `${label}: ${inState.length} (${bySeverity.map(([s, n]) => `${n} ${s}`).join(', ')})`;
  });
  const deferred = gaps.filter((g) => g.state === 'USER_DEFERRED').length;
  lines.push(`User Deferred: ${deferred} (0.5 weight each)`);
  const untriaged = gaps.filter((g) => g.severity === 'UNTRIAGED' && STATE_CLASS[g.state] !== 'closed').map((g) => g.id);
  if (untriaged.length > 0) lines.push(`Untriaged: ${untriaged.length} (${untriaged.join(', ')}; each weighs as MEDIUM until triaged)`);
  lines.push('');
  lines.push(`Total open count: ${formatCount(view.open.count)} (using lifecycle formula; weighted ${formatCount(view.open.weighted)})`);
  return lines;
}

/**
 * The options, numbered in a fixed order (narrow scope first), the one recommended (R28)
 * marked in its heading and followed by why, with the figure that decided it.
 */
function options(view: SessionView): string[] {
  const gaps = [...view.gaps.values()];
  const entries = optionEntries(view);
  const chosen = entries.find((e) => e.recommended);
  const heading = (kind: string, text: string): string => (chosen?.kind === kind ? `${text} [RECOMMENDED]` : text);
  const because = (kind: string): string[] => (chosen?.kind === kind && chosen.why !== null ? [`   Recommended because ${chosen.why}`] : []);
  const narrow = decisionOptions(view).find((o) => o.kind === 'narrow_scope');
  const defer = narrow?.gaps.map((g) => g.id) ?? [];
  const critical = gaps.filter((g) => g.severity === 'CRITICAL' && isOpen(g)).map((g) => g.id);
  const unfinished = gaps.filter((g) => isOpen(g) || g.state === 'USER_DEFERRED').length;
  const lines = [
    heading('narrow_scope', '1. Narrow scope - Remove non-blocking gaps from focus'),
    defer.length > 0
      ? `   Suggestion: Defer ${defer.join(', ')} (${deferralGround(narrow!)})`
      : '   Suggestion: no open MEDIUM or LOW gap to suggest; name the gaps to defer',
    `   Run: gapflow decide narrow-scope --gaps ${defer.length > 0 ? defer.join(',') : 'ID[,ID...]'}`,
    ...because('narrow_scope'),
    '',
    heading('accept_complexity', '2. Accept complexity - Acknowledge scope expansion is warranted'),
    `   Effect: Reset baseline to the current gap count (${formatCount(view.open.count)} open, weighted ${formatCount(view.open.weighted)}), continue`,
    '   Run: gapflow decide accept-complexity',
    ...because('accept_complexity'),
    '',
  ];
  if (critical.length > 0) {
    lines.push(
      heading('prioritize_critical', `3. Prioritize CRITICAL - Focus next round exclusively on ${critical.join(', ')}`),
      '   Effect: Pause all other work until CRITICAL resolved',
      '   Run: gapflow decide prioritize-critical',
      ...because('prioritize_critical'),
    );
  } else {
    lines.push('3. Prioritize CRITICAL - not available: no CRITICAL gap is open');
  }
  lines.push(
    '',
    heading('pause', '4. Pause - Save session for later'),
    '   Effect: State preserved; resume returns to DIVERGENCE_WARNING',
    '   Run: gapflow decide pause',
    ...because('pause'),
    '',
    '5. Force complete - Accept with known gaps',
    `   Effect: Final summary lists ${unfinished} unfinished gap${unfinished === 1 ? '' : 's'} in Known Limitations`,
  );
  if (critical.length > 0) lines.push('   WARNING: Spec may be unimplementable (CRITICAL gaps are open)');
  lines.push('   Run: gapflow decide force-complete', '', '6. Abandon - Stop here without completing', '   Run: gapflow decide abandon');
  return lines;
}

/**
 * The decision prompt shown in DIVERGENCE_WARNING (docs/rules.md#decisions), every
 * figure taken from the round that raised the warning. Null when no decision
 * is due.
 */
export function renderPrompt(view: SessionView): string | null {
  const round = lastClosedRound(view);
  if (view.machine.state !== 'DIVERGENCE_WARNING' || !round) return null;
  if (!round.combined) return null;
  if (!soleNarrator(view)) return policyPrompt(view, round, round.combined);
  const trigger = triggerOf(view, round);
  return [
    `Session Progress: Round ${round.round} of max ${view.config.maxRounds}`,
    `Convergence State: ${view.machine.state}`,
    '',
    '=== This Round ===',
    ...thisRound(round),
    '',
    '=== Progress ===',
    ...progress(view, round, trigger),
    '',
    '=== Cause Analysis ===',
    ...causes(view, round, trigger),
    '',
    '=== Current Gap Inventory ===',
    ...inventoryLines(view),
    '',
    '=== Options ===',
    ...options(view),
    '',
  ].join('\n');
}

/** The decision prompt when policies besides gaps judged the round: their verdicts are the cause; gap sections only when gaps run. */
function policyPrompt(view: SessionView, round: RoundFigures, combined: NonNullable<RoundFigures['combined']>): string {
  const stalled = view.history.some((h) => h.cause === 'round' && h.round === round.round && h.to === 'STALLED');
  const primary = stalled
    ? `PRIMARY: No progress for ${counted(view.config.stallThreshold, 'consecutive round')} (flat: ${combined.detail})`
    : `PRIMARY: ${combined.verdict} (${combined.policies.join(', ')}): ${combined.detail}`;
  const gaps = tracksGaps(view);
  const lines = [
    `Session Progress: Round ${round.round}`,
    `Convergence State: ${view.machine.state}`,
    '',
    '=== Policies ===',
    ...round.verdicts.map((v) => `${v.policy}: ${v.verdict} (${v.reason}): ${v.detail}`),
    '',
    ...remainingIssueLines(view),
    '=== Cause Analysis ===',
    primary,
    ...(gaps ? standingCauses(view).map((cause) => `SECONDARY: ${cause}`) : []),
    '',
  ];
  if (gaps)
    lines.push(
      '=== This Round ===',
      ...thisRound(round),
      '',
      '=== Current Gap Inventory ===',
      ...inventoryLines(view),
      '',
      '=== Options ===',
      ...options(view),
      '',
    );
  else {
    lines.push(
      '=== Options ===',
      '1. Accept and continue - the loop goes on with a fresh flat count',
      '   Run: gapflow decide accept-complexity',
      '',
      '2. Pause - Save session for later',
      '   Run: gapflow decide pause',
      '',
      '3. Force complete - Accept where it stands (outcome STALL_EXIT)',
      '   Run: gapflow decide force-complete',
      '',
      '4. Abandon - Stop here without completing',
      '   Run: gapflow decide abandon',
      '',
    );
  }
  return lines.join('\n');
}

/** The Remaining Issues section: each policy's issues still in dispute (forge's concerns of the votes that did not agree); none when there are none. */
function remainingIssueLines(view: SessionView): string[] {
  const issues = sessionRemainingIssues(view);
  if (issues.length === 0) return [];
  // A policy's issues are what reviewers wrote (forge's concerns): data, fenced as titles are.
  const fence = dataFence();
  return ['=== Remaining Issues ===', dataNote('issues'), fence.open, ...issues.map((issue) => `- ${asData(issue)}`), fence.close, ''];
}

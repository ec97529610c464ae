import { type DecisionRecord, type SessionView } from '../core/index.js';
import { escapeMarkdown as md, table } from './markdown.js';

/*
 * decisions.md (R27): every user decision,
 * rebuilt from the log, in the order made: when (the round it followed, or
 * the one it was made in), what was decided, the gaps it named, the
 * acknowledgment or rationale given, and what it did.
 */

/** A decision as people say it: `narrow_scope` is "narrow scope". */
const decisionWord = (kind: DecisionRecord['kind']): string => kind.replaceAll('_', ' ');

/** When a decision was made, as the State History says it. */
function when(decision: DecisionRecord): string {
  if (decision.duringRound) return `during round ${decision.afterRound + 1}`;
  return decision.afterRound === 0 ? 'before round 1' : `after round ${decision.afterRound}`;
}

/** The acknowledgment and the rationale a decision carried; `-` for neither. */
function grounds(decision: DecisionRecord): string {
  const parts: string[] = [];
  if (decision.acknowledgment === 'critical_risk') parts.push('CRITICAL risk acknowledged');
  if (decision.rationale) parts.push(`rationale: ${md(decision.rationale)}`);
  return parts.length === 0 ? '-' : parts.join('; ');
}

function decisionName(decision: DecisionRecord): string {
  return decision.kind === 'extend_rounds' ? `extend rounds +${decision.rounds ?? 0}` : decisionWord(decision.kind);
}

/** decisions.md for the session as its log leaves it. */
export function renderDecisions(view: SessionView): string {
  const parts = ['# gapflow decisions'];
  if (view.decisions.length === 0) {
    parts.push('_No decision has been made yet._');
  } else {
    const rows = view.decisions.map((d, i) => [
      String(i + 1),
      when(d),
      decisionName(d),
      d.gaps.length === 0 ? '-' : d.gaps.map(md).join(', '),
      grounds(d),
      md(d.effect),
    ]);
    parts.push(table(['#', 'Round', 'Decision', 'Gaps', 'Acknowledgment / Rationale', 'Effect'], rows));
  }
  return `${parts.join('\n\n')}\n`;
}

import { claimedGaps, idList, type SessionView } from '../core/index.js';
import { escapeMarkdown, table } from './markdown.js';

/*
 * The findings sources in status.md: each source's last snapshot (when,
 * which round, how many findings, what reconciling it did) and the claims a
 * tool disputes, so a reader sees the tools' word beside the agent's.
 */

/** The Findings Sources section's lines; empty for a session no tool's snapshot reached. */
export function sourcesSection(view: SessionView): string[] {
  if (view.sources.length === 0) return [];
  const rows = view.sources.map((record) => [
    escapeMarkdown(record.source),
    record.format,
    record.at,
    record.round === 0 ? 'baseline' : String(record.round),
    String(record.reported),
    String(record.opened),
    String(record.resolved),
    String(record.reopened),
    record.claimed.length === 0 ? '0' : `${record.claimed.length} (${escapeMarkdown(idList(record.claimed))})`,
  ]);
  const parts = [
    '### Findings Sources',
    table(['Source', 'Format', 'Last snapshot', 'Round', 'Findings', 'Opened', 'Resolved', 'Reopened', 'Claimed but still reported'], rows),
  ];
  const claimed = claimedGaps(view);
  if (claimed.length > 0) {
    parts.push(
      `**Claimed but still reported:** ${escapeMarkdown(idList(claimed))}: closed by hand as fixed, but the tool still reports them; they are open again.`,
    );
  }
  return parts;
}

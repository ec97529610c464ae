import { closedRounds, tracksGaps, viewForecast } from '../core/index.js';
import { policySections, verdictTable } from './policies.js';
import type { SessionView } from '../core/index.js';
import { openChart, stateChart } from './charts.js';
import { sourcesSection } from './sources.js';
import { verificationSection } from './verification.js';
import {
  configTable,
  disagreementNote,
  headline,
  historyList,
  inventory,
  netsDisagree,
  outsideFocusNote,
  roundTable,
  severityChangeNote,
  severityTable,
} from './sections.js';

/** status.md: the session's configuration, round tables and state history, plus the gap inventory (of a large one, the first gaps of each severity and the rest counted, unless `all`). */
export function renderStatus(view: SessionView, options: { all?: boolean } = {}): string {
  const rounds = closedRounds(view);
  const latest = rounds.at(-1);
  const parts = [
    '# gapflow status',
    headline(view),
    '## Convergence Tracking',
    '### Session Configuration',
    configTable(view),
    '### Round Progress',
    rounds.length === 0 ? '_No round has closed yet._' : tracksGaps(view) ? roundTable(view) : verdictTable(view),
  ];
  const forecast = rounds.length > 0 ? viewForecast(view) : null;
  if (forecast) parts.push(`**Forecast:** ${forecast.detail}.`);
  const chart = tracksGaps(view) ? openChart(view) : null;
  if (chart) parts.push(chart);
  if (latest && tracksGaps(view)) {
    parts.push(`### Severity Breakdown (Round ${latest.round})`, severityTable(latest));
    if (latest.severityChanges.length > 0) parts.push(severityChangeNote(latest));
    if (netsDisagree(latest)) parts.push(disagreementNote(latest));
    if (latest.outsideFocus.length > 0) parts.push(outsideFocusNote(latest));
  }
  parts.push('### State History', historyList(view), `### State Diagram (now ${view.machine.state})`, stateChart(view));
  parts.push(...verificationSection(view));
  parts.push(...sourcesSection(view));
  parts.push(...policySections(view));
  if (tracksGaps(view)) parts.push('### Gap Inventory', inventory(view, options.all));
  return `${parts.join('\n\n')}\n`;
}

import { CONVERGENCE_STATES } from '../../events/index.js';
import type { FleetRow } from './rows.js';

/*
 * `/metrics`: the fleet in Prometheus's text exposition format, version
 * 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
 */

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

interface Family {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
  samples: Sample[];
}

/** Every metric of the fleet's rows (one row a session, as `fleet --json` lists them). */
export function metricsText(rows: readonly FleetRow[]): string {
  const read = rows.filter((row) => row.error === null);
  const perSession = (value: (row: FleetRow) => number | null): Sample[] =>
    read.flatMap((row) => {
      const v = value(row);
      return v === null ? [] : [{ labels: { session: row.name }, value: v }];
    });
  const families: Family[] = [
    {
      name: 'gapflow_sessions',
      type: 'gauge',
      help: 'Sessions in each state (every state listed, zeros too).',
      samples: CONVERGENCE_STATES.map((state) => ({ labels: { state }, value: read.filter((row) => row.state === state).length })),
    },
    {
      name: 'gapflow_sessions_unreadable',
      type: 'gauge',
      help: 'Sessions whose log could not be read.',
      samples: [{ labels: {}, value: rows.length - read.length }],
    },
    {
      name: 'gapflow_sessions_stale',
      type: 'gauge',
      help: 'Sessions shown as last read because their latest read failed for a passing cause (a dropped connection, a refused open); read again until one succeeds.',
      samples: [{ labels: {}, value: read.filter((row) => row.stale).length }],
    },
    { name: 'gapflow_rounds_closed_total', type: 'counter', help: 'Rounds closed, per session.', samples: perSession((row) => row.round) },
    {
      name: 'gapflow_warnings_total',
      type: 'counter',
      help: 'Round closes that raised a DIVERGENCE_WARNING (divergence, a CRITICAL gap, a stall, or another policy such as a budget), per session.',
      samples: perSession((row) => row.warnings),
    },
    { name: 'gapflow_open_gaps', type: 'gauge', help: 'Open gaps, per session.', samples: perSession((row) => row.open) },
    {
      name: 'gapflow_weighted_open_gaps',
      type: 'gauge',
      help: 'Open gaps weighted by severity (CRITICAL 16, HIGH 4, MEDIUM 2, LOW 1), per session.',
      samples: perSession((row) => row.weightedOpen),
    },
    {
      name: 'gapflow_last_event_timestamp_seconds',
      type: 'gauge',
      help: 'When the last event of each session was recorded (seconds since the epoch).',
      samples: perSession((row) => (row.lastEventAt === null ? null : Date.parse(row.lastEventAt) / 1000)),
    },
  ];
  return families.map(familyText).join('');
}

function familyText({ name, type, help, samples }: Family): string {
  const lines = [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
  for (const { labels, value } of samples) lines.push(`${name}${labelText(labels)} ${valueText(value)}`);
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** A label value: backslash, double quote and line feed escaped. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

import { describe, expect, it } from 'vitest';
import { errorRow, fleetRow, metricsText, type FleetRow } from '../../src/fleet/index.js';
import { baseline, newSession, playRound } from '../support.js';

/*
 * /metrics in Prometheus's text format 0.0.4, read back by a parser
 * written here from the format's description (not from the code's output):
 * `# HELP name text`, `# TYPE name type`, then `name{label="value",…} number`
 * lines, a label value escaping backslash, double quote and line feed.
 */

interface Parsed {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

function parseExposition(text: string): Parsed {
  expect(text.endsWith('\n')).toBe(true);
  const parsed: Parsed = { help: new Map(), type: new Map(), samples: [] };
  for (const line of text.slice(0, -1).split('\n')) {
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment;
      if (kind === 'HELP')
        parsed.help.set(
          name!,
          rest!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)),
        );
      else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(rest);
        expect(
          parsed.samples.some((s) => s.name === name),
          `TYPE ${name} comes before its samples`,
        ).toBe(false);
        parsed.type.set(name!, rest!);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/.exec(line);
    expect(sample, `a sample line: ${JSON.stringify(line)}`).not.toBeNull();
    const [, name, labelText, value] = sample!;
    parsed.samples.push({ name: name!, labels: labelText ? parseLabels(labelText) : {}, value: Number(value) });
  }
  return parsed;
}

/** `{a="x",b="y \"q\""}`, read character by character as the format defines it. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 1;
  while (text[i] !== '}') {
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))![0];
    i += name.length;
    expect(text.slice(i, i + 2)).toBe('="');
    i += 2;
    let value = '';
    while (text[i] !== '"') {
      if (text[i] === '\\') {
        const next = text[i + 1];
        expect(['\\', '"', 'n']).toContain(next);
        value += next === 'n' ? '\n' : next;
        i += 2;
      } else {
        value += text[i];
        i += 1;
      }
    }
    i += 1;
    labels[name] = value;
    if (text[i] === ',') i += 1;
  }
  expect(i).toBe(text.length - 1);
  return labels;
}

const NOW = Date.UTC(2026, 0, 12, 12, 0, 0);

/** Three sessions: two CONVERGING (one with 2 rounds), one warned for a CRITICAL gap; and one unreadable. */
function rows(): FleetRow[] {
  const a = newSession();
  baseline(a, 'HIGH', 2);
  playRound(a, { resolve: ['B-HIGH-1'] });
  playRound(a, { resolve: ['B-HIGH-2'], open: [['N-1', 'LOW']] });
  const b = newSession();
  baseline(b, 'LOW', 1);
  const c = newSession();
  baseline(c, 'LOW', 1);
  playRound(c, { open: [['C-1', 'CRITICAL']] });
  return [
    fleetRow('team/a', { ...a.view, lastAt: '2026-01-12T11:00:00.000Z' }, NOW),
    fleetRow('say "hi" \\ back\nslash', { ...b.view, lastAt: null }, NOW),
    fleetRow('c', { ...c.view, lastAt: '2026-01-12T10:00:00.500Z' }, NOW),
    errorRow('broken', 'line 2: not JSON'),
  ];
}

describe('/metrics: the fleet in the Prometheus text format', () => {
  // Parsed inside each test, so a text the parser refuses fails the tests that read it, by name.
  let once: Parsed | null = null;
  const exposition = () => (once ??= parseExposition(metricsText(rows())));
  const samples = (name: string) => exposition().samples.filter((s) => s.name === name);
  const bySession = (name: string) => Object.fromEntries(samples(name).map((s) => [s.labels.session, s.value]));

  it('gives every family a HELP and a TYPE', () => {
    const parsed = exposition();
    const names = new Set(parsed.samples.map((s) => s.name));
    for (const name of names) {
      expect(parsed.help.get(name), name).toBeTruthy();
      expect(parsed.type.has(name), name).toBe(true);
    }
    expect(parsed.type.get('gapflow_rounds_closed_total')).toBe('counter');
    expect(parsed.type.get('gapflow_warnings_total')).toBe('counter');
    expect(parsed.type.get('gapflow_sessions')).toBe('gauge');
  });

  it('counts sessions by state, every state listed, zeros too, the unreadable apart', () => {
    expect(Object.fromEntries(samples('gapflow_sessions').map((s) => [s.labels.state, s.value]))).toEqual({
      CONVERGING: 2,
      FLAT: 0,
      STALLED: 0,
      DIVERGENCE_WARNING: 1,
      PAUSED: 0,
      COMPLETE: 0,
    });
    expect(samples('gapflow_sessions_unreadable')).toEqual([{ name: 'gapflow_sessions_unreadable', labels: {}, value: 1 }]);
  });

  it('gives rounds closed, warnings, open and weighted open per session, a name with quotes, backslashes and a line feed intact', () => {
    const odd = 'say "hi" \\ back\nslash';
    expect(bySession('gapflow_rounds_closed_total')).toEqual({ 'team/a': 2, [odd]: 0, c: 1 });
    expect(bySession('gapflow_warnings_total')).toEqual({ 'team/a': 0, [odd]: 0, c: 1 });
    expect(bySession('gapflow_open_gaps')).toEqual({ 'team/a': 1, [odd]: 1, c: 2 });
    expect(bySession('gapflow_weighted_open_gaps')).toEqual({ 'team/a': 1, [odd]: 1, c: 17 });
  });

  it("gives the last event's time in seconds, for sessions that have one", () => {
    expect(bySession('gapflow_last_event_timestamp_seconds')).toEqual({
      'team/a': Date.UTC(2026, 0, 12, 11) / 1000,
      c: Date.UTC(2026, 0, 12, 10, 0, 0, 500) / 1000,
    });
  });

  it('counts no stale session when every read got through', () => {
    expect(samples('gapflow_sessions_stale')).toEqual([{ name: 'gapflow_sessions_stale', labels: {}, value: 0 }]);
    expect(exposition().type.get('gapflow_sessions_stale')).toBe('gauge');
  });

  it('counts a session shown stale in the stale gauge, and by its last state and figures, not as unreadable', () => {
    const a = newSession();
    baseline(a, 'HIGH', 1);
    const b = newSession();
    baseline(b, 'LOW', 3);
    const parsed = parseExposition(
      metricsText([
        fleetRow('fresh', a.view, NOW),
        fleetRow('stale', b.view, NOW, { since: NOW - 40_000, reason: 'Connection terminated unexpectedly' }),
        errorRow('broken', 'line 2: not JSON'),
      ]),
    );
    const value = (name: string, labels: Record<string, string> = {}) =>
      parsed.samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value;
    expect(value('gapflow_sessions_stale')).toBe(1);
    expect(value('gapflow_sessions_unreadable')).toBe(1);
    expect(value('gapflow_sessions', { state: 'CONVERGING' })).toBe(2);
    expect(value('gapflow_open_gaps', { session: 'stale' })).toBe(3);
  });

  it('is valid with no session at all: the states at zero', () => {
    const empty = parseExposition(metricsText([]));
    expect(empty.samples.filter((s) => s.name === 'gapflow_sessions').map((s) => s.value)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(empty.samples.filter((s) => s.name === 'gapflow_rounds_closed_total')).toEqual([]);
  });
});

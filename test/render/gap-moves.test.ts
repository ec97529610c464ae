import { describe, expect, it } from 'vitest';
import { toStateJson } from '../../src/core/index.js';
import { renderPrompt, renderRoundReport, renderStatus } from '../../src/render/index.js';
import type { BodyInputOf, EventBodyInput, Severity } from '../../events/index.js';
import type { SessionView } from '../../src/index.js';
import { newSession } from '../support.js';

/*
 * What the new moves show (issue 15): withdrawn duplicates in the round
 * table (a column only when some round has one), state --json and the
 * prompt (R20); splits in the prompt and the inventory (R21); untriaged
 * gaps listed as such, and a round that ends with some says how many (R23).
 */

/** A session (default settings) that has recorded `requests` in order; its view. */
function played(...requests: EventBodyInput[]): { view: SessionView } {
  const session = newSession();
  for (const request of requests) session.record(request);
  return { view: session.view };
}

const open = (id: string, severity: Severity): BodyInputOf<'gap.opened'> => ({ type: 'gap.opened', data: { id, severity } });
const resolve = (id: string): BodyInputOf<'gap.moved'> => ({ type: 'gap.moved', data: { id, to: 'RESOLVED' } });
const startRound = (): BodyInputOf<'round.started'> => ({ type: 'round.started', data: {} });
const closeRound = (): BodyInputOf<'round.closed'> => ({ type: 'round.closed', data: {} });
const round = (...requests: EventBodyInput[]): EventBodyInput[] => [startRound(), ...requests, closeRound()];

const duplicate = (id: string, of: string): BodyInputOf<'gap.moved'> => ({ type: 'gap.moved', data: { id, to: 'DUPLICATE', of } });
const split = (id: string, ...parts: [string, Severity][]): BodyInputOf<'gap.split'> => ({
  type: 'gap.split',
  data: { id, into: parts.map(([partId, severity]) => ({ id: partId, severity })) },
});

/** The round table's header row and the row of `round`, as cells. */
function roundRow(status: string, round: number): Record<string, string> {
  const lines = status.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| Round |'));
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const names = cells(lines[header]!);
  const row = lines.slice(header + 2).find((line) => cells(line)[0] === String(round))!;
  return Object.fromEntries(cells(row).map((cell, i) => [names[i]!, cell]));
}

describe('R20: withdrawn figures are shown apart', () => {
  const session = () => played(open('G1', 'HIGH'), open('G2', 'HIGH'), open('G3', 'LOW'), ...round(duplicate('G2', 'G1'), resolve('G3')), ...round());

  it('the round table has a Withdrawn column once a round withdrew a gap, and its rows add up', () => {
    const row = roundRow(renderStatus(session().view), 1);
    expect(row.Withdrawn).toBe('1');
    const [start_, resolved, added, withdrawn, end] = ['Open Start', 'Resolved', 'New', 'Withdrawn', 'Open End'].map((name) => Number(row[name]));
    expect(end).toBe(start_! - resolved! + added! - withdrawn!);
    expect(roundRow(renderStatus(session().view), 2).Withdrawn).toBe('0');
  });

  it('a session that never withdrew a gap has no Withdrawn column', () => {
    const status = renderStatus(played(open('G1', 'HIGH'), open('G2', 'LOW'), ...round(resolve('G2'))).view);
    expect(status).toContain('| Round |');
    expect(status).not.toContain('Withdrawn');
  });

  it("state --json shows the round's withdrawn figures and what each duplicate duplicates", () => {
    const state = toStateJson(session().view);
    expect(state.rounds[0]).toMatchObject({ withdrawn: 1, weightedWithdrawn: 4, withdrawnGaps: [{ id: 'G2', of: 'G1' }] });
    expect(state.rounds[1]).not.toHaveProperty('withdrawn');
    expect(state.gaps.find((g) => g.id === 'G2')).toMatchObject({ state: 'DUPLICATE', duplicateOf: 'G1' });
  });

  it('the inventory says what a duplicate duplicates', () => {
    expect(renderStatus(session().view)).toMatch(/\| G2 \| DUPLICATE \|[^\n]*duplicate of G1/);
  });

  it('the prompt lists the withdrawn gaps apart from the resolved ones', () => {
    const warned = played(open('G1', 'HIGH'), open('G2', 'HIGH'), ...round(duplicate('G2', 'G1'), open('C1', 'CRITICAL')));
    const prompt = renderPrompt(warned.view)!;
    expect(prompt).toContain('Resolved: 0 gaps');
    expect(prompt).toContain('Withdrawn as duplicates: 1 gap (weighted: 4; neither resolved nor new)');
    expect(prompt).toContain('  - G2 (HIGH, weight 4) duplicate of G1');
  });

  it('the round report names the withdrawn gaps', () => {
    const view = played(open('G1', 'HIGH'), open('G2', 'HIGH'), ...round(duplicate('G2', 'G1'))).view;
    expect(renderRoundReport(view)).toContain('Withdrawn as duplicates: 1 (weighted 4): G2 of G1');
  });
});

describe('R21: splits are shown with their parts', () => {
  it('the prompt names the split and its weighted effect; the inventory links parent and parts', () => {
    const warned = played(open('G1', 'HIGH'), open('G2', 'LOW'), ...round(split('G1', ['A', 'CRITICAL'], ['B', 'LOW'])));
    const prompt = renderPrompt(warned.view)!;
    expect(prompt).toContain(`  - G1 split into A, B (weighted new +${16 + 1 - 4})`);
    const status = renderStatus(warned.view);
    expect(status).toMatch(/\| G1 \| SPLIT \|[^\n]*split into A, B/);
    expect(status).toMatch(/\| A \| OPEN \|[^\n]*split from G1/);
  });
});

describe('R23: untriaged gaps are listed as such', () => {
  const session = () => played(open('G1', 'HIGH'), open('U1', 'UNTRIAGED'), open('U2', 'UNTRIAGED'), startRound(), resolve('G1'), closeRound());

  it('the inventory has an UNTRIAGED section and the headline counts them', () => {
    const status = renderStatus(session().view);
    expect(status).toContain('#### UNTRIAGED (2, open count 2)');
    expect(status).toContain('**Untriaged:** 2 gaps');
    expect(status).toMatch(/\| U1 \| OPEN \|[^\n]*untriaged \(weighs as MEDIUM\)/);
  });

  it('a session with no untriaged gap shows no UNTRIAGED section or row', () => {
    const status = renderStatus(played(open('G1', 'HIGH'), open('G2', 'LOW'), ...round(resolve('G2'))).view);
    expect(status).not.toContain('UNTRIAGED');
  });

  it('a round that ends with untriaged gaps says how many', () => {
    expect(renderRoundReport(session().view)).toContain('Untriaged: 2 gaps still without a severity');
  });

  it('state --json counts the untriaged gaps', () => {
    expect(toStateJson(session().view)).toMatchObject({ untriagedGapCount: 2 });
  });

  it('the prompt lists the untriaged gaps', () => {
    const warned = played(open('G1', 'HIGH'), open('U1', 'UNTRIAGED'), ...round(open('C1', 'CRITICAL')));
    expect(renderPrompt(warned.view)).toContain('Untriaged: 1 (U1; each weighs as MEDIUM until triaged)');
  });
});

import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { canonicalRequest, canonicalWord, EventBody, nearestWord, REQUEST_WORDS, shownValue, wordsAt } from '../../events/index.js';
import { GAP_STATE_WORDS, SEVERITY_WORDS } from '../../events/index.js';

describe('one vocabulary: any case, `-` or `_`', () => {
  it.each(['in-progress', 'IN_PROGRESS', 'In_Progress', 'in_progress', ' In-Progress '])('%j is IN_PROGRESS', (spelling) => {
    expect(canonicalWord(spelling, GAP_STATE_WORDS)).toBe('IN_PROGRESS');
  });

  it('a word that spells none is not taken, nor is anything that is not text', () => {
    expect(canonicalWord('in progress', GAP_STATE_WORDS)).toBeUndefined();
    expect(canonicalWord('INPROGRESS', GAP_STATE_WORDS)).toBeUndefined();
    expect(canonicalWord(3, SEVERITY_WORDS)).toBeUndefined();
  });

  it('a request has its type, its words and its policy names brought to their one spelling, and is not changed itself', () => {
    const asked = {
      type: 'Decision.Made',
      data: { kind: 'Narrow-Scope', gaps: ['g-1'] },
    };
    expect(canonicalRequest(asked)).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['g-1'] } });
    expect(asked.data.kind).toBe('Narrow-Scope');
    expect(canonicalRequest({ type: 'gap.severity-changed', data: { id: 'GAP-1', to: 'critical' } })).toEqual({
      type: 'gap.severity_changed',
      data: { id: 'GAP-1', to: 'CRITICAL' },
    });
    expect(
      canonicalRequest({ type: 'session.started', data: { preset: 'Auto', completeWhen: 'ANY', policies: ['Gaps', 'Atoms'], policySettings: { Atoms: {} } } }),
    ).toEqual({
      type: 'session.started',
      data: { preset: 'auto', completeWhen: 'any', policies: ['gaps', 'atoms'], policySettings: { atoms: {} } },
    });
  });

  it('gap ids and free text keep their spelling: only words from a list are respelt', () => {
    const body = { type: 'gap.opened', data: { id: 'medium', severity: 'low', title: 'In-Progress' } };
    expect(canonicalRequest(body)).toEqual({ type: 'gap.opened', data: { id: 'medium', severity: 'LOW', title: 'In-Progress' } });
  });

  it('the lists it respells by are the schemas own: every field of a request that takes a word from a list is in REQUEST_WORDS, with the same words', () => {
    const found: Record<string, Record<string, string[]>> = {};
    for (const option of EventBody.options) {
      const type = option.shape.type._zod.def.values[0]!;
      for (const [field, schema] of Object.entries(option.shape.data.shape)) {
        const inner = schema instanceof z.ZodMiniOptional || schema instanceof z.ZodMiniDefault ? schema._zod.def.innerType : schema;
        if (inner instanceof z.ZodMiniEnum) (found[type] ??= {})[field] = inner.options.map(String);
        if (inner instanceof z.ZodMiniLiteral) (found[type] ??= {})[field] = [...inner._zod.values].map(String);
      }
    }
    expect(found).toEqual(
      Object.fromEntries(
        Object.entries(REQUEST_WORDS).map(([type, fields]) => [type, Object.fromEntries(Object.entries(fields).map(([f, w]) => [f, [...w]]))]),
      ),
    );
    expect(wordsAt('gap.moved', ['data', 'to'])).toBe(GAP_STATE_WORDS);
    expect(wordsAt('gap.moved', ['data', 'reason'])).toBeUndefined();
  });
});

describe('did you mean', () => {
  it.each([
    ['MEDUIM', SEVERITY_WORDS, 'MEDIUM'],
    ['hihg', SEVERITY_WORDS, 'HIGH'],
    ['crit', SEVERITY_WORDS, 'CRITICAL'],
    ['in-progres', GAP_STATE_WORDS, 'IN_PROGRESS'],
    ['resolvd', GAP_STATE_WORDS, 'RESOLVED'],
    ['wont-fix', GAP_STATE_WORDS, 'WONT_FIX'],
    ['stauts', ['state', 'status', 'summary'], 'status'],
  ])('%j: %s', (typed, words, meant) => {
    expect(nearestWord(typed, words)).toBe(meant);
  });

  it.each([['surrender'], ['x'], [''], ['NEEDS']])('%j is near no gap state: no guess', (typed) => {
    expect(nearestWord(typed, ['OPEN', 'IN_PROGRESS', 'BLOCKED', 'PROPOSED', 'RESOLVED'])).toBeNull();
  });
});

describe('a bad value as an error echoes it', () => {
  it('quoted as JSON, controls and direction overrides spelt out, cut to 40 characters', () => {
    expect(shownValue('MEDUIM')).toBe('"MEDUIM"');
    expect(shownValue(0)).toBe('0');
    expect(shownValue(undefined)).toBe('nothing');
    expect(shownValue('a\nb\u202ec')).toBe('"a\\nb\\u202ec"');
    const long = shownValue('y'.repeat(100));
    expect([...long]).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
  });
});

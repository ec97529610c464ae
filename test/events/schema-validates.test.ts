import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sandbox } from '../cli/helpers.js';

/*
 * events/schema.json checked with a real JSON Schema validator (Ajv, draft
 * 2020-12) against what gapflow really writes and accepts, so the document a
 * loop in another language relies on cannot drift from the log.
 */

const schema = JSON.parse(readFileSync(new URL('../../events/schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validLine = ajv.compile(schema);
const validRequest = ajv.compile({ ...schema, oneOf: undefined, $ref: '#/$defs/EventRequest' });

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

function playMixedSession(): void {
  box.ok('init', '--policy', 'gaps,quality,atoms', '--agent-session', 'agent-1');
  box.ok('gap', 'open', 'G-1', '--severity', 'HIGH', '--title', 'A | table <b>breaker</b>');
  box.ok('gap', 'open', 'G-2', '--severity', 'LOW');
  box.ok('round', 'start');
  box.ok('gap', 'move', 'G-1', 'IN_PROGRESS');
  box.ok('gap', 'move', 'G-1', 'BLOCKED', '--blocked-by', 'G-2', '--reason', 'waits');
  box.ok('record', 'quality', '--score', '70');
  box.ok('record', 'atoms', '--pending', '5', '--resolved', '1');
  box.ok('round', 'close');
  box.ok('decide', 'pause');
}

describe('events/schema.json validates', () => {
  it('every line of a real log (gaps, policies, a binding, a decision), checksums included', () => {
    playMixedSession();
    const lines = box.logLines();
    expect(lines.length).toBeGreaterThan(8);
    for (const [index, line] of lines.entries()) {
      const ok = validLine(JSON.parse(line));
      expect(ok, `line ${index + 1}: ${ajv.errorsText(validLine.errors)}`).toBe(true);
    }
  });

  it("refuses a line whose metrics do not match its policy's own schema, and one without its checksum", () => {
    playMixedSession();
    const line = JSON.parse(box.logLines().find((l) => l.includes('"policy":"atoms"'))!) as { data: { metrics: Record<string, unknown> }; sum?: string };
    expect(validLine(line)).toBe(true);
    expect(validLine({ ...line, data: { ...line.data, metrics: { bogus: 1 } } })).toBe(false);
    const { sum: _sum, ...unsealed } = line;
    expect(validLine(unsealed)).toBe(false);
  });

  it('an append request: its optional id, and its metrics checked against the policy', () => {
    expect(validRequest({ type: 'gap.opened', data: { id: 'G-9', severity: 'LOW' } })).toBe(true);
    expect(validRequest({ type: 'gap.opened', data: { id: 'G-9', severity: 'LOW' }, id: 'loop-1.a' })).toBe(true);
    expect(validRequest({ type: 'metrics.recorded', data: { policy: 'quality', metrics: { score: 80 } } })).toBe(true);
    expect(validRequest({ type: 'metrics.recorded', data: { policy: 'quality', metrics: { bogus: 80 } } })).toBe(false);
    expect(validRequest({ type: 'gap.opened', data: { id: 'G-9', severity: 'URGENT' } })).toBe(false);
  });
});

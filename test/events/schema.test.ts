import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { EventBody, EventRequest, eventJsonSchemaText, GapflowEvent } from '../../events/index.js';
import { gapflowJsonSchemaText } from '../../src/schema.js';
import { metricPolicies } from '../../src/policies/index.js';
import { runCli } from '../cli/helpers.js';

const committedPath = join(import.meta.dirname, '..', '..', 'events', 'schema.json');
const committed = readFileSync(committedPath, 'utf8');

describe('events/schema.json', () => {
  it('is what the zod schemas generate now (run `npm run schema` when this fails)', () => {
    expect(committed, 'events/schema.json is stale: run `npm run schema`').toBe(gapflowJsonSchemaText());
  });

  it('the staleness check sees a changed schema: one more optional field gives a different document', () => {
    const gapMoved = GapflowEvent.option('gap.moved')!;
    const changed = z.discriminatedUnion('type', [
      z.extend(gapMoved, { data: z.extend(gapMoved.shape.data, { note: z.optional(z.string()) }) }),
      ...GapflowEvent.options.filter((o) => o !== gapMoved),
    ]);
    const policies = Object.fromEntries(metricPolicies().map((p) => [p.name, { settings: p.settings, metrics: p.metrics }]));
    // The same inputs as the committed document, but for the one field: only that change can make it differ.
    expect(eventJsonSchemaText({ event: GapflowEvent, request: EventRequest, policies })).toBe(committed);
    const text = eventJsonSchemaText({ event: changed, request: EventRequest, policies });
    expect(text).not.toBe(committed);
    expect(text).toContain('"note"');
  });

  it('covers every event type, stored and as an append request with an optional id', () => {
    const doc = JSON.parse(committed) as {
      oneOf: { properties: { type: { const: string } }; required: string[] }[];
      $defs: { EventRequest: { oneOf: { properties: { type: { const: string }; id?: unknown }; required: string[] }[] } };
    };
    const types = EventBody.options.map((o) => o.shape.type._zod.def.values[0]).sort();
    expect(doc.oneOf.map((s) => s.properties.type.const).sort()).toEqual(types);
    for (const stored of doc.oneOf) expect(stored.required).toEqual(expect.arrayContaining(['v', 'seq', 'id', 'at', 'type', 'data']));
    const requests = doc.$defs.EventRequest.oneOf;
    expect(requests.map((s) => s.properties.type.const).sort()).toEqual(types);
    for (const request of requests) {
      expect(request.properties.id).toBeDefined();
      expect(request.required).not.toContain('id');
    }
  });

  it("describes each policy's metrics and settings, from the policies' own schemas", () => {
    const doc = JSON.parse(committed) as {
      $defs: Record<'PolicyMetrics' | 'PolicySettings', { properties: Record<string, { required?: string[]; properties: Record<string, unknown> }> }>;
    };
    const names = metricPolicies()
      .map((p) => p.name)
      .sort();
    expect(Object.keys(doc.$defs.PolicyMetrics.properties).sort()).toEqual(names);
    expect(Object.keys(doc.$defs.PolicySettings.properties).sort()).toEqual(names);
    // The atoms metrics: pending and resolved are required, the flags have defaults.
    const atoms = doc.$defs.PolicyMetrics.properties.atoms!;
    expect(atoms.required).toEqual(expect.arrayContaining(['pending', 'resolved']));
    expect(atoms.required).not.toContain('stopRequested');
    expect(Object.keys(atoms.properties)).toEqual(expect.arrayContaining(['stopRequested', 'redirectRequested', 'verify']));
  });

  it('`gapflow schema` prints the committed document', () => {
    const result = runCli(['schema'], { cwd: import.meta.dirname });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(committed);
  });
});

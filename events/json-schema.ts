import * as z from 'zod/mini';
import { EventRequest } from './request.js';
import { EVENT_VERSION } from './limits.js';
import { GapflowEvent, type LazyUnion } from './schemas.js';

/**
 * The JSON Schema of the log and of `gapflow append`'s input, generated from
 * the zod schemas so the two can never disagree. `events/schema.json` is this
 * document, committed; a test fails when it is stale (`npm run schema` writes it).
 */
export interface SchemaParts {
  /** A schema, or a union built type by type (schemas.ts), whose whole union is built here. */
  event: z.core.$ZodType | LazyUnion;
  request: z.core.$ZodType | LazyUnion;
  /** Each policy's own schemas, for the `metrics` of `metrics.recorded` and the `policySettings` of `session.started`. */
  policies?: Readonly<Record<string, { settings: z.core.$ZodType; metrics: z.core.$ZodType }>>;
}

/** The schema itself: a union built type by type is built whole. */
function whole(schema: z.core.$ZodType | LazyUnion): z.core.$ZodType {
  return '_zod' in schema ? schema : schema.whole();
}

/** A policy's schema as a request gives it (defaults may be left out); a transform shows as what it accepts. */
function inputSchema(schema: z.core.$ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

function byPolicy(title: string, policies: NonNullable<SchemaParts['policies']>, part: 'settings' | 'metrics') {
  const names = Object.keys(policies).sort();
  return { title, type: 'object', properties: Object.fromEntries(names.map((name) => [name, inputSchema(policies[name]![part])])) };
}

type Node = Record<string, unknown> & { properties?: Record<string, Node>; required?: string[]; allOf?: unknown[] };

/** The alternatives of a union schema, one per event type. */
function alternatives(schema: Record<string, unknown>): Node[] {
  const options = (schema.oneOf ?? schema.anyOf) as Node[] | undefined;
  return options ?? [];
}

function typeOf(option: Node): unknown {
  return (option.properties?.type as Node | undefined)?.const;
}

/**
 * Ties each policy's own schemas into the event schemas: a metrics.recorded
 * event's `metrics` must match its `policy`'s, and session.started's
 * `policySettings` each named policy's.
 */
function linkPolicies(options: Node[], names: readonly string[]): void {
  for (const option of options) {
    const data = option.properties?.data;
    if (!data?.properties) continue;
    if (typeOf(option) === 'metrics.recorded') {
      data.allOf = names.map((name) => ({
        if: { properties: { policy: { const: name } }, required: ['policy'] },
        then: { properties: { metrics: { $ref: `#/$defs/PolicyMetrics/properties/${name}` } } },
      }));
    }
    const settings = data.properties.policySettings;
    if (typeOf(option) === 'session.started' && settings) {
      settings.properties = Object.fromEntries(names.map((name) => [name, { $ref: `#/$defs/PolicySettings/properties/${name}` }]));
    }
  }
}

/** A stored line also carries its chained checksum, `sum` (src/log/lines.ts), after the event's own fields. */
function sealed(options: Node[]): void {
  for (const option of options) {
    option.properties = {
      ...option.properties,
      sum: { type: 'string', pattern: '^[0-9a-f]{16}$', description: "the first 16 hex digits of sha256(previous line's sum + this line without its sum)" },
    };
    option.required = [...(option.required ?? []), 'sum'];
  }
}

export function eventJsonSchema(schemas: SchemaParts = { event: GapflowEvent, request: EventRequest }) {
  // A stored event has its defaults filled in (output); a request may leave them out (input).
  const { $schema, ...event } = z.toJSONSchema(whole(schemas.event), { io: 'output' });
  const { $schema: _, ...request } = z.toJSONSchema(whole(schemas.request), { io: 'input' });
  const policies = schemas.policies ?? {};
  const names = Object.keys(policies).sort();
  sealed(alternatives(event));
  linkPolicies(alternatives(event), names);
  linkPolicies(alternatives(request), names);
  return {
    $schema,
    title: `gapflow event, version ${EVENT_VERSION}: one line of events.jsonl (older versions are read and upcast; this describes the current one)`,
    ...event,
    $defs: {
      EventRequest: {
        title: 'one line given to `gapflow append`: an event body with an optional id; gapflow adds v, seq and at',
        ...request,
      },
      PolicyMetrics: byPolicy('the `metrics` of a metrics.recorded event, by its `policy` (checked when recorded and on replay)', policies, 'metrics'),
      PolicySettings: byPolicy('the settings of each policy in session.started `policySettings`, by policy name', policies, 'settings'),
    },
  };
}

/** The schema document as `gapflow schema` prints it and `events/schema.json` holds it. */
export function eventJsonSchemaText(schemas?: Parameters<typeof eventJsonSchema>[0]): string {
  return `${JSON.stringify(eventJsonSchema(schemas), null, 2)}\n`;
}

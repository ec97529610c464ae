import { z } from 'zod';
import { EventRequest } from './request.js';
import { EVENT_VERSION, GapflowEvent } from './schemas.js';

/**
 * The JSON Schema of the log and of `gapflow append`'s input, generated from
 * the zod schemas so the two can never disagree. `events/schema.json` is this
 * document, committed; a test fails when it is stale (`npm run schema` writes it).
 */
export function eventJsonSchema(schemas: { event: z.ZodType; request: z.ZodType } = { event: GapflowEvent, request: EventRequest }) {
  // A stored event has its defaults filled in (output); a request may leave them out (input).
  const { $schema, ...event } = z.toJSONSchema(schemas.event, { io: 'output' });
  const { $schema: _, ...request } = z.toJSONSchema(schemas.request, { io: 'input' });
  return {
    $schema,
    title: `gapflow event, version ${EVENT_VERSION}: one line of events.jsonl`,
    ...event,
    $defs: {
      EventRequest: {
        title: 'one line given to `gapflow append`: an event body with an optional id; gapflow adds v, seq and at',
        ...request,
      },
    },
  };
}

/** The schema document as `gapflow schema` prints it and `events/schema.json` holds it. */
export function eventJsonSchemaText(schemas?: Parameters<typeof eventJsonSchema>[0]): string {
  return `${JSON.stringify(eventJsonSchema(schemas), null, 2)}\n`;
}

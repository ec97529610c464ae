import { EventRequest, eventJsonSchemaText, GapflowEvent } from '../events/index.js';
import { metricPolicies } from './policies/index.js';

/**
 * The JSON Schema document of the log and of `gapflow append`'s input, with
 * each policy's own metrics and settings: what `gapflow schema` prints and
 * `events/schema.json` holds (`npm run schema` writes it).
 */
export function gapflowJsonSchemaText(): string {
  const policies = Object.fromEntries(metricPolicies().map((p) => [p.name, { settings: p.settings, metrics: p.metrics }]));
  return eventJsonSchemaText({ event: GapflowEvent, request: EventRequest, policies });
}

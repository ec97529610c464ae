import { hiddenTextProblem } from './hidden.js';
import { readIssue, type BadValue } from './issues.js';
import { EventBody } from './schemas.js';
import { canonicalRequest, wordsAt } from './spelling.js';

/**
 * One line of a batch given to `gapflow append`: an event body and, if the
 * caller wants to name its event, an `id`. Its schemas are built with the
 * bodies' (schemas.ts), one type at a time.
 */
export { EventRequest } from './schemas.js';

/** The fields the object at `path` in a request of `type` may hold, for a "did you mean"; undefined when that is not known. */
export function requestFields(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 0) return ['type', 'data'];
  if (path.length !== 1 || path[0] !== 'data') return undefined;
  const option = EventBody.option(type);
  return option === undefined ? undefined : Object.keys(option.shape.data.shape);
}

/**
 * A caller's request, read: the typed body the core's `decide` takes, or
 * the one line saying why it is none (`bad`: the value it is wrong about,
 * when one is), for the edge to refuse.
 */
export type ParsedRequest = { body: EventBody; message?: undefined } | { message: string; bad?: BadValue | undefined };

/**
 * Parses what a caller asks to record, where the text enters: its words
 * taken in any spelling (`in-progress` is IN_PROGRESS) and recorded in the
 * canonical one. A malformed body is named by the field, the value given,
 * what the field takes and the nearest valid word. The core trusts what
 * this returns and parses nothing again.
 */
export function parseRequest(input: unknown): ParsedRequest {
  const canonical = canonicalRequest(input);
  const hidden = hiddenTextOf(canonical);
  if (hidden !== null) return { message: `${rawLabel(canonical)}: ${hidden}` };
  const parsed = EventBody.safeParse(canonical, { reportInput: true });
  if (parsed.success) return { body: parsed.data };
  const type = typeof canonical === 'object' && canonical !== null ? (canonical as { type?: unknown }).type : undefined;
  const { message, bad } = readIssue(parsed.error, { words: (path) => wordsAt(type, path), fields: (path) => requestFields(type, path) });
  return { message: `${rawLabel(canonical)}: ${message}`, bad };
}

/**
 * A request whose text holds an invisible or direction-changing character
 * is refused naming the field and the code point (hidden.ts says why).
 * Checked on the raw request, before the schema, so that an id is refused
 * for the character too, not only for not being a word. The output of a
 * verification run is gapflow's own capture of what the check printed, not
 * a caller's text: it is shown spelt out instead.
 */
function hiddenTextOf(request: unknown): string | null {
  if (typeof request !== 'object' || request === null || !('data' in request)) return null;
  const { type, data } = request as { type?: unknown; data: unknown };
  const checked = type === 'verification.ran' && typeof data === 'object' && data !== null ? { ...data, output: '' } : data;
  return hiddenTextProblem(checked);
}

/** Names what was asked for as well as malformed input allows: `gap.opened GAP-1`, `event`. */
function rawLabel(input: unknown): string {
  if (typeof input !== 'object' || input === null || !('type' in input) || typeof input.type !== 'string') return 'event';
  const data = 'data' in input && typeof input.data === 'object' && input.data !== null ? input.data : {};
  const word = (key: string) =>
    key in data && typeof (data as Record<string, unknown>)[key] === 'string' ? ((data as Record<string, unknown>)[key] as string) : undefined;
  const name = word('id') ?? word('kind') ?? word('policy') ?? '';
  const safe = name.length <= 128 && /^[\x21-\x7e]+$/.test(name) ? ` ${name}` : '';
  return `${input.type.slice(0, 64)}${safe}`;
}

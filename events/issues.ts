import type * as z from 'zod';

/** Control characters, line and paragraph separators, bidirectional overrides: what must not reach a terminal raw. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line naming the first thing wrong in a zod failure: `data.severity:
 * Invalid option …`. zod echoes what it was given (an unknown key, a path
 * segment), so any control character in it is written escaped (`\n`,
 * `\u001b`): the line stays one line, and a hostile key cannot rewrite the
 * terminal.
 */
export function formatIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid event';
  const where = issue.path.map(String).join('.');
  const text = where ? `${where}: ${issue.message}` : issue.message;
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

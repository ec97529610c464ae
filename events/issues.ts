import type * as z from 'zod';

/** One line naming the first thing wrong in a zod failure: `data.severity: Invalid option …`. */
export function formatIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid event';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

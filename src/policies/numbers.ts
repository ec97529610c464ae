/** A net with its sign: `+6`, `0`, `-4` (status.md's round tables). */
export function signed(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : formatCount(n);
}

/** R9: one decimal only when the count is fractional (a deferred gap counts half). */
export function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

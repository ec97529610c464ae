/** R12: closing round `max_rounds` (or a later one) is the last; the one test of the round limit every policy combination shares. */
export function lastRoundClosed(round: number, maxRounds: number): boolean {
  return round >= maxRounds;
}

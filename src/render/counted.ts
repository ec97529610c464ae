/** A count with its noun in agreement: `1 gap`, `2 gaps`, `0 events` (English plurals by `s` unless told). */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

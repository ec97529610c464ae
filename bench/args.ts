import { closeSync, fsyncSync, openSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/*
 * What the bench's entry points share: their command line (an option's
 * value, log sizes as people write them) and settling the disk before a
 * timed write.
 */

/** `--name V` or `--name=V` from the process's command line; undefined when not given. */
export function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const at = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at === -1) return undefined;
  const arg = args[at]!;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[at + 1];
}

/** "100", "1k", "100k", "1M", "2.5M" → events. */
export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  if (!match) throw new Error(`--sizes: "${text}" is not a size like 1k, 100k or 1M`);
  const factor = match[2] === '' ? 1 : match[2]!.toLowerCase() === 'k' ? 1_000 : 1_000_000;
  return Math.round(Number(match[1]) * factor);
}

/** The sizes `--sizes` or `$BENCH_SIZES` name (else `fallback`), once each, smallest first. */
export function sizesOption(fallback: string): number[] {
  return sizesIn(option('sizes') ?? process.env.BENCH_SIZES ?? fallback);
}

/** The sizes a list names ("1k,10k,100k"), once each, smallest first. */
export function sizesIn(list: string): number[] {
  return [...new Set(list.split(',').map(parseSize))].sort((a, b) => a - b);
}

/** 1000 → "1k", 1000000 → "1M": a size as the bench prints it. */
export function label(events: number): string {
  if (events >= 1_000_000 && events % 1_000_000 === 0) return `${events / 1_000_000}M`;
  if (events >= 1_000 && events % 1_000 === 0) return `${events / 1_000}k`;
  return String(events);
}

/** Writes `file`'s dirty pages out, then every file system's (`sync`, best effort), so no timed call pays for the bench's own writes. */
export function settleWrites(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  spawnSync('sync', { stdio: 'ignore' });
}

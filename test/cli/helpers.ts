import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { run } from '../../src/cli/index.js';
import { sealLine } from '../../src/log/index.js';
import type { StateJson } from '../../src/core/index.js';

/** What one CLI call did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with its own cwd, environment and standard input; nothing is read from this process. */
export function runCli(argv: string[], where: { cwd: string; env?: Record<string, string | undefined>; stdin?: string }): CliResult {
  let stdout = '';
  let stderr = '';
  const code = run(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    // The test run's own config folder (vitest.config.ts), where `init --verify` keeps its approval, unless the test names one.
    env: { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...where.env },
    cwd: where.cwd,
    ...(where.stdin === undefined ? {} : { stdin: () => where.stdin! }),
  });
  return { code, stdout, stderr };
}

/**
 * A fresh temporary folder holding one session folder (`<root>/session`).
 * `gf(...)` runs `gapflow ... --dir <session>`; `remove()` deletes it all.
 */
export class Sandbox {
  readonly root: string;
  readonly dir: string;

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), 'gapflow-cli-'));
    this.dir = join(this.root, 'session');
  }

  get logPath(): string {
    return join(this.dir, 'events.jsonl');
  }

  get statusPath(): string {
    return join(this.dir, 'status.md');
  }

  /** `gapflow <argv> --dir <session>`, run in-process from the sandbox root. */
  gf(...argv: string[]): CliResult {
    return runCli([...argv, '--dir', this.dir], { cwd: this.root });
  }

  /** A setup step that must succeed; fails the test with the CLI's own message if it does not. */
  ok(...argv: string[]): CliResult {
    const result = this.gf(...argv);
    expect(result.stderr, `setup step \`gapflow ${argv.join(' ')}\``).toBe('');
    expect(result.code, `setup step \`gapflow ${argv.join(' ')}\``).toBe(0);
    return result;
  }

  /** Several setup steps, each written as it would be typed (`gap open A --severity HIGH`). */
  steps(...commands: string[]): void {
    for (const command of commands) this.ok(...command.split(' '));
  }

  stateJson(): StateJson {
    const result = this.ok('state', '--json');
    return JSON.parse(result.stdout) as StateJson;
  }

  /** The log's exact bytes, or null when there is no log. */
  logBytes(): Buffer | null {
    return existsSync(this.logPath) ? readFileSync(this.logPath) : null;
  }

  logLines(): string[] {
    return readFileSync(this.logPath, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  }

  writeLog(text: string): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.logPath, text, 'utf8');
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Asserts the one-line error contract shared by refusals (exit 1) and usage errors (exit 2). */
export function expectOneLineError(result: CliResult, code: 1 | 2, mentions: readonly (string | RegExp)[]): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^gapflow: /);
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.slice(0, -1)).not.toContain('\n');
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('    at ');
  for (const mention of mentions) {
    if (typeof mention === 'string') expect(result.stderr).toContain(mention);
    else expect(result.stderr).toMatch(mention);
  }
}

/**
 * Runs `gapflow <argv>` expecting it to be refused: the exit code, one
 * `gapflow: ` line on stderr naming what it must, nothing on stdout, and the
 * log byte-for-byte as it was (or still absent).
 */
export function expectRefused(box: Sandbox, argv: readonly string[], mentions: readonly (string | RegExp)[], code: 1 | 2 = 1): CliResult {
  const before = box.logBytes();
  const result = box.gf(...argv);
  expectOneLineError(result, code, mentions);
  const after = box.logBytes();
  if (before === null) expect(after).toBeNull();
  else {
    expect(after).not.toBeNull();
    expect(Buffer.compare(after!, before), 'events.jsonl changed').toBe(0);
  }
  return result;
}

/** What a failed call reports under `--json`: one JSON object on stderr. */
export interface JsonFailure {
  code: 'usage' | 'invalid_value' | 'refused' | 'log_error' | 'error';
  message: string;
  remedy: string | null;
  field?: string;
  value?: unknown;
  valid?: string[] | null;
  suggestion?: string | null;
}

/**
 * Asserts the `--json` error contract: exit `code`, nothing on stdout, and
 * on stderr one line holding one JSON object {code, message, remedy} whose
 * message names what `mentions` say; returns the object.
 */
export function expectJsonFailure(result: CliResult, code: 1 | 2, mentions: readonly (string | RegExp)[]): JsonFailure {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.slice(0, -1)).not.toContain('\n');
  const failure = JSON.parse(result.stderr) as JsonFailure;
  expect(Object.keys(failure).slice(0, 3)).toEqual(['code', 'message', 'remedy']);
  expect(failure.code === 'usage').toBe(code === 2);
  for (const mention of mentions) {
    if (typeof mention === 'string') expect(failure.message).toContain(mention);
    else expect(failure.message).toMatch(mention);
  }
  return failure;
}

/** `expectRefused` for a call with `--json`: the failure as JSON on stderr, the log byte for byte as it was. */
export function expectRefusedAsJson(box: Sandbox, argv: readonly string[], code: 1 | 2, mentions: readonly (string | RegExp)[]): JsonFailure {
  const before = box.logBytes();
  const failure = expectJsonFailure(box.gf(...argv), code, mentions);
  const after = box.logBytes();
  if (before === null) expect(after).toBeNull();
  else expect(Buffer.compare(after!, before), 'events.jsonl changed').toBe(0);
  return failure;
}

/** Matches `text` as a whole word (a state name, a gap id, a flag), not as part of a longer one. */
export function word(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`);
}

export function words(...texts: string[]): RegExp[] {
  return texts.map(word);
}

/*
 * Sessions in a known state, built through the CLI. Each checks the state it
 * claims to reach, so a refusal test never passes for the wrong reason.
 */

/** Baseline: GAP-H1 (HIGH) and GAP-M1 (MEDIUM), no round started; CONVERGING. */
export function atBaseline(box: Sandbox, ...initFlags: string[]): void {
  box.ok('init', ...initFlags);
  box.steps('gap open GAP-H1 --severity HIGH --title Parser', 'gap open GAP-M1 --severity MEDIUM --title Retries');
  expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 0, roundOpen: false });
}

/** Round 1 open over the baseline. */
export function inRoundOne(box: Sandbox): void {
  atBaseline(box);
  box.ok('round', 'start');
  expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 0, roundOpen: true });
}

/** Round 1 closed after resolving GAP-M1 (weighted net +2): CONVERGING between rounds. */
export function convergingAfterRoundOne(box: Sandbox): void {
  inRoundOne(box);
  box.steps('gap move GAP-M1 RESOLVED', 'round close');
  expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 1, roundOpen: false });
}

/** Round 1 closed with nothing done (weighted net 0): FLAT, flat_count 1. */
export function flatAfterRoundOne(box: Sandbox): void {
  atBaseline(box);
  box.steps('round start', 'round close');
  expect(box.stateJson()).toMatchObject({ state: 'FLAT', round: 1, flatCount: 1, roundOpen: false });
}

/** Round 1 opened GAP-C1 as CRITICAL (critical override): DIVERGENCE_WARNING. */
export function divergingAfterRoundOne(box: Sandbox): void {
  atBaseline(box);
  box.steps('round start', 'gap open GAP-C1 --severity CRITICAL --title Schema', 'round close');
  expect(box.stateJson()).toMatchObject({ state: 'DIVERGENCE_WARNING', round: 1, roundOpen: false });
}

/** CONVERGING after round 1, then paused. */
export function pausedAfterRoundOne(box: Sandbox): void {
  convergingAfterRoundOne(box);
  box.ok('decide', 'pause');
  expect(box.stateJson()).toMatchObject({ state: 'PAUSED', round: 1 });
}

/** Round 1 closed, then abandoned: COMPLETE (ABANDONED). */
export function completeAfterRoundOne(box: Sandbox): void {
  convergingAfterRoundOne(box);
  box.ok('decide', 'abandon');
  expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'ABANDONED' });
}

/**
 * A hand-edited log's lines joined, each event line sealed anew with its
 * chained checksum, as a careful hand-editor would: for corruptions of
 * content, so that the rule under test (not the checksum) is what fires.
 */
export function resealed(lines: readonly string[]): string {
  let previous = '';
  const sealed = lines.map((line) => {
    if (!line.startsWith('{"v":')) return line;
    const next = sealLine(line.replace(/,"sum":"[0-9a-f]{16}"\}$/, '}'), previous);
    previous = next.sum;
    return next.line.slice(0, -1);
  });
  return `${sealed.join('\n')}\n`;
}

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { expect } from 'vitest';
import type { Finding } from '../../src/sync/index.js';

/*
 * Real producers' output, made in the test run: ESLint 9 through its Node
 * API, formatted by @microsoft/eslint-formatter-sarif (the formatter GitHub's
 * code-scanning docs use). Shared by the readers' tests and the CLI's.
 */

/** The rules the helpers lint with unless told: one error-level rule and one warning-level one, both with fixed messages. */
export const ESLINT_RULES: Linter.RulesRecord = { 'no-unused-vars': 'error', eqeqeq: 'warn' };

/** A fresh temporary folder, as its real path (ESLint reports real paths: /tmp may be a link). */
export function tempProject(prefix = 'gapflow-sync-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Deletes a folder tempProject made. */
export function removeProject(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes each file (a path relative to `dir` → its text), making its folders. */
export function writeFiles(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** What one ESLint run gave: the SARIF text, and ESLint's own results it was formatted from (to check the reader against). */
export interface EslintRun {
  sarif: string;
  results: ESLint.LintResult[];
}

/**
 * The formatter as a file path. ESLint resolves a formatter's package name
 * from its `cwd`, a temporary folder with no node_modules, so it is handed
 * the file, as GitHub's docs do (`-f node_modules/@microsoft/eslint-formatter-sarif/sarif.js`).
 */
const SARIF_FORMATTER = createRequire(import.meta.url).resolve('@microsoft/eslint-formatter-sarif');

/** The formatter's switches (`SARIF_ESLINT_EMBED`, `SARIF_ESLINT_IGNORE_SUPPRESSED`): unset while it runs, unless the caller asks. */
const FORMATTER_ENV = ['SARIF_ESLINT_EMBED', 'SARIF_ESLINT_IGNORE_SUPPRESSED'];

/**
 * Runs ESLint 9 over `files` (paths or globs relative to `cwd`) with `rules`
 * (flat config, ES modules, no config file read) and formats the results
 * as SARIF with @microsoft/eslint-formatter-sarif. `ignoreSuppressed` sets
 * the formatter's SARIF_ESLINT_IGNORE_SUPPRESSED (suppressed results left out).
 */
export async function eslintSarif(
  cwd: string,
  files: readonly string[],
  options: { rules?: Linter.RulesRecord; ignoreSuppressed?: boolean } = {},
): Promise<EslintRun> {
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.js'],
        languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
        linterOptions: { reportUnusedDisableDirectives: 'off' },
        rules: options.rules ?? ESLINT_RULES,
      },
    ],
  });
  const results = await eslint.lintFiles([...files]);
  const formatter = await eslint.loadFormatter(SARIF_FORMATTER);
  const saved = FORMATTER_ENV.map((name) => [name, process.env[name]] as const);
  for (const name of FORMATTER_ENV) Reflect.deleteProperty(process.env, name);
  if (options.ignoreSuppressed) process.env.SARIF_ESLINT_IGNORE_SUPPRESSED = 'true';
  try {
    return { sarif: await formatter.format(results), results };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
}

/** The gap id of an identity, by the stated rule: the rule's name made id-safe (given here, worked out by hand), `-`, 12 hex digits of sha256(source NUL JSON). */
export function idOf(source: string, rulePart: string, identity: readonly (string | number)[]): string {
  const hash = createHash('sha256')
    .update(`${source}\u0000${JSON.stringify(identity)}`)
    .digest('hex');
  return `${rulePart}-${hash.slice(0, 12)}`;
}

/** The findings ESLint's own results (not its SARIF) should give: rule, path relative to `root`, message; the n-th repeat with n appended. */
export function expectedFromEslint(run: EslintRun, root: string, source = 'ESLint'): Finding[] {
  const repeats = new Map<string, number>();
  const findings: Finding[] = [];
  for (const result of run.results) {
    const path = relative(root, result.filePath).split(sep).join('/');
    for (const message of result.messages) {
      expect(message.ruleId, 'these modules have no parse errors').toMatch(/^[a-z][a-z-]*$/);
      const identity = [message.ruleId!, 'location', path, message.message];
      const n = repeats.get(JSON.stringify(identity)) ?? 0;
      repeats.set(JSON.stringify(identity), n + 1);
      findings.push({
        id: idOf(source, message.ruleId!, n === 0 ? identity : [...identity, n]),
        severity: message.severity === 2 ? 'HIGH' : 'MEDIUM',
        title: `${message.message} (${path}:${message.line})`,
      });
    }
  }
  return findings;
}

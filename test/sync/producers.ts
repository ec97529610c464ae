import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint, type Linter } from 'eslint';

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

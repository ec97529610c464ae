import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { convergingAfterRoundOne, expectOneLineError, runCli, Sandbox } from './helpers.js';
import { longSession } from './long-session.js';

/*
 * `status --format github`: a job summary appended to $GITHUB_STEP_SUMMARY
 * (else printed), kept under GitHub's 1 MiB cap for a step's summary, which
 * the runner otherwise drops whole.
 */

const MIB = 1024 * 1024;
const mermaidBlocks = (text: string) => [...text.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
const tableRows = (text: string) => text.split('\n').filter((line) => /^\| \d+ \|/.test(line));

describe('a 5,000-round session', () => {
  const root = mkdtempSync(join(tmpdir(), 'gapflow-github-'));
  const dir = join(root, 'session');
  const summaryFile = join(root, 'step-summary.md');
  const status = (env: Record<string, string>) => runCli(['status', '--format', 'github', '--dir', dir], { cwd: root, env });
  beforeAll(() => void longSession(dir, 5_000), 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => writeFileSync(summaryFile, ''));

  it('gets a summary under 1 MiB with a Mermaid chart Mermaid will draw and every round in the table', { timeout: 60_000 }, () => {
    const result = status({ GITHUB_STEP_SUMMARY: summaryFile });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Appended the job summary to ${summaryFile}\n`);
    const text = readFileSync(summaryFile, 'utf8');
    expect(statSync(summaryFile).size).toBeLessThan(MIB);
    const charts = mermaidBlocks(text);
    expect(charts).toHaveLength(1);
    expect(charts[0]!.startsWith('xychart-beta')).toBe(true);
    // Mermaid refuses a diagram over 50,000 characters.
    expect(charts[0]!.length).toBeLessThan(50_000);
    expect(charts[0]).toContain('"5000"');
    const rows = tableRows(text);
    expect(rows).toHaveLength(5_000);
    expect(rows.at(-1)).toMatch(/^\| 5000 \| 5000 \| 1 \| 1 \| 5000 \| 0 \| \+3 \| CONVERGING \| 0 \|$/);
  });

  it('cuts the table to its latest rounds, with a "+N more rounds" line, when other steps filled most of the summary', { timeout: 60_000 }, () => {
    const before = `# Test results\n\n${'x'.repeat(900 * 1024)}\n`;
    writeFileSync(summaryFile, before);
    const result = status({ GITHUB_STEP_SUMMARY: summaryFile });
    expect(result.code).toBe(0);
    expect(statSync(summaryFile).size).toBeLessThan(MIB);
    const text = readFileSync(summaryFile, 'utf8');
    expect(text.startsWith(before)).toBe(true);
    const ours = text.slice(before.length);
    expect(ours.startsWith('\n## gapflow: CONVERGING\n')).toBe(true);
    const rows = tableRows(ours);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(5_000);
    expect(rows.at(-1)).toMatch(/^\| 5000 \|/);
    expect(ours).toContain(`_+${5_000 - rows.length} more rounds before these`);
    expect(mermaidBlocks(ours)).toHaveLength(1);
  });

  it('writes nothing, with one line, when the summary has no room left for it', { timeout: 60_000 }, () => {
    writeFileSync(summaryFile, 'x'.repeat(MIB - 1024));
    const result = status({ GITHUB_STEP_SUMMARY: summaryFile });
    expectOneLineError(result, 1, [summaryFile, "GitHub's 1 MiB cap", 'nothing was written']);
    expect(statSync(summaryFile).size).toBe(MIB - 1024);
  });
});

describe('status --format github', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = new Sandbox();
    convergingAfterRoundOne(box);
  });
  afterEach(() => box.remove());
  const github = (env: Record<string, string | undefined>, ...more: string[]) =>
    runCli(['status', '--format', 'github', ...more, '--dir', box.dir], { cwd: box.root, env });

  it('prints the summary when $GITHUB_STEP_SUMMARY is unset or empty', () => {
    for (const env of [{}, { GITHUB_STEP_SUMMARY: '' }]) {
      const result = github(env);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^## gapflow: CONVERGING\n/);
      expect(result.stdout).toContain('```mermaid\nxychart-beta');
    }
  });

  it('appends on a line of its own after what the step wrote, and takes a path relative to the working folder', () => {
    writeFileSync(join(box.root, 'summary.md'), 'Tests: 12 passed');
    expect(github({ GITHUB_STEP_SUMMARY: 'summary.md' }).code).toBe(0);
    expect(github({ GITHUB_STEP_SUMMARY: 'summary.md' }).code).toBe(0);
    const text = readFileSync(join(box.root, 'summary.md'), 'utf8');
    expect(text.startsWith('Tests: 12 passed\n\n## gapflow: CONVERGING\n')).toBe(true);
    expect(text.match(/^## gapflow: /gm)).toHaveLength(2);
  });

  it('with --json says where it wrote, or hands the summary over', () => {
    const printed = github({}, '--json');
    expect(JSON.parse(printed.stdout)).toEqual({ summary: expect.stringMatching(/^## gapflow: CONVERGING/) });
    const file = join(box.root, 'summary.md');
    expect(JSON.parse(github({ GITHUB_STEP_SUMMARY: file }, '--json').stdout)).toEqual({ written: file });
  });

  it('refuses --write beside it as a usage error, and a format it does not know as an invalid value', () => {
    expectOneLineError(github({}, '--write'), 2, ['--write', '--format github']);
    expectOneLineError(runCli(['status', '--format', 'html', '--dir', box.dir], { cwd: box.root }), 1, ['--format', '"html"', 'markdown', 'github']);
    // Spelt any way, as every word the CLI takes.
    expect(runCli(['status', '--format', 'GitHub', '--dir', box.dir], { cwd: box.root, env: {} }).code).toBe(0);
  });
});

/**
 * `npm run bench:sync [-- --findings N] [--changes N] [--runs N] [--timeout S]`:
 * issue 32's goal, `gapflow sync` of a 50,000-result SARIF within 1.5x of
 * `gapflow append` of the same gap events into a fresh session, measured
 * side by side in one run (interleaved, medians; each run gets a session
 * folder of its own, made before it and outside its time). Also measured,
 * for information: the re-sync of that session by a snapshot with 1,000
 * changes (half the findings fixed, half new), against `append` of the same
 * 1,000 gap events; and each call's peak RSS beside the input's size (the
 * reader holds the text and the snapshot, so memory follows the input).
 *
 * The SARIF is ESLint's shape (@microsoft/eslint-formatter-sarif: absolute
 * file URIs, no fingerprints, a level on each result, pretty-printed), with
 * 20 rules over 2,000 files; the batch holds the gap events the snapshot
 * opens, read by gapflow's own reader (so both sides open the same gaps).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { option, settleWrites } from './args.js';
import { killRunning, series, type Child, type Summary } from './measure.js';
import { readSarif } from '../src/sync/index.js';

const BIN = fileURLToPath(new URL('../gapflow.cjs', import.meta.url));
const FINDINGS = Number(option('findings') ?? 50_000);
const CHANGES = Number(option('changes') ?? 1_000);
const RUNS = Number(option('runs') ?? 7);
const TIMEOUT_MS = Number(option('timeout') ?? 300) * 1000;
if (!(FINDINGS >= 2) || !(CHANGES >= 2) || CHANGES > FINDINGS || !(RUNS >= 1) || !(TIMEOUT_MS > 0)) {
  throw new Error('--findings, --changes (at most --findings), --runs and --timeout take positive numbers');
}

const RULES = Array.from({ length: 20 }, (_, i) => `rule-${i}`);
const FILES = 2_000;

/** One ESLint-shaped result: finding `n` of the synthetic project under `root`, its message naming it (so it is its own finding). */
function result(root: string, n: number): object {
  const rule = n % RULES.length;
  return {
    level: rule % 3 === 0 ? 'error' : 'warning',
    message: { text: `'value${n}' is assigned a value but never used.` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: pathToFileURL(join(root, 'src', `module-${n % FILES}.js`)).href, index: n % FILES },
          region: { startLine: 1 + (n % 400), startColumn: 7, endLine: 1 + (n % 400), endColumn: 19 },
        },
      },
    ],
    ruleId: RULES[rule],
    ruleIndex: rule,
  };
}

/** ESLint's SARIF for the findings numbered `numbers`, pretty-printed as its formatter writes it. */
function sarif(root: string, numbers: Iterable<number>): string {
  const rules = RULES.map((id) => ({ id, helpUri: `https://eslint.org/docs/latest/rules/${id}`, properties: {}, shortDescription: { text: id } }));
  const artifacts = Array.from({ length: FILES }, (_, i) => ({ location: { uri: pathToFileURL(join(root, 'src', `module-${i}.js`)).href } }));
  const results = [...numbers].map((n) => result(root, n));
  const log = {
    version: '2.1.0',
    $schema: 'http://json.schemastore.org/sarif-2.1.0-rtm.5',
    runs: [{ tool: { driver: { name: 'ESLint', rules } }, artifacts, results }],
  };
  return JSON.stringify(log, null, 2);
}

const jsonl = (lines: readonly object[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

function gapflow(dir: string, ...argv: string[]): Child {
  return { args: [BIN, ...argv, '--dir', dir] };
}

function init(dir: string): void {
  const made = spawnSync(process.execPath, [BIN, 'init', '--dir', dir], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`gapflow init: ${made.stderr}`);
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '-');
const mib = (value: number) => (Number.isFinite(value) ? `${(value / 1024 / 1024).toFixed(1)} MiB` : '-');
const ratio = (subject: Summary, baseline: Summary) => subject.ms / baseline.ms;

function row(measure: string, subject: Summary, baseline: Summary, goal: number | null): string {
  const failed = [subject, baseline].find((s) => s.outcome !== 'ok');
  if (failed) return `  ${measure}: ${failed.outcome} (${failed.note})`;
  const r = ratio(subject, baseline);
  const verdict = goal === null ? 'info' : r <= goal ? 'PASS' : 'MISS';
  const goalText = goal === null ? '' : ` [goal <= ${goal}x]`;
  return `  ${measure}: ${ms(subject.ms)} (RSS ${mib(subject.rss)}) vs ${ms(baseline.ms)} (RSS ${mib(baseline.rss)}): ${r.toFixed(2)}x${goalText} ${verdict}`;
}

const root = mkdtempSync(join(tmpdir(), 'gapflow-bench-sync-'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killRunning();
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });
}
try {
  const project = join(root, 'project');
  mkdirSync(project);
  const all = Array.from({ length: FINDINGS }, (_, n) => n);
  const bigFile = join(project, 'eslint.sarif');
  writeFileSync(bigFile, sarif(project, all));
  // The changed snapshot: the first half of the changes fixed, as many new findings after the last one.
  const fixed = CHANGES / 2;
  const changed = [...all.slice(fixed), ...Array.from({ length: CHANGES - fixed }, (_, i) => FINDINGS + i)];
  const changedFile = join(project, 'eslint-changed.sarif');
  writeFileSync(changedFile, sarif(project, changed));

  // The same gap events, as gapflow's reader opens them from the snapshot.
  const read = (file: string, text: string) => readSarif(text, { file, root: project });
  const first = read(bigFile, sarif(project, all));
  const opened = (finding: (typeof first.findings)[number]) => ({
    type: 'gap.opened',
    // The same gaps, as a request may give them: `source` and `by` are a snapshot's to write, not a request's.
    data: { id: finding.id, severity: finding.severity, title: finding.title },
  });
  const batchFile = join(root, 'gaps.jsonl');
  writeFileSync(batchFile, jsonl(first.findings.map(opened)));
  const next = read(changedFile, sarif(project, changed));
  const kept = new Set(next.findings.map((finding) => finding.id));
  const known = new Set(first.findings.map((finding) => finding.id));
  const changesFile = join(root, 'changes.jsonl');
  writeFileSync(
    changesFile,
    jsonl([
      ...first.findings.filter((finding) => !kept.has(finding.id)).map((finding) => ({ type: 'gap.moved', data: { id: finding.id, to: 'RESOLVED' } })),
      ...next.findings.filter((finding) => !known.has(finding.id)).map(opened),
    ]),
  );

  // A session holding the whole first snapshot, copied for each re-sync run.
  const template = join(root, 'template');
  init(template);
  const seeded = spawnSync(process.execPath, [BIN, 'sync', bigFile, '--dir', template], { cwd: project, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`gapflow sync (the template): ${seeded.stderr}`);
  settleWrites(join(template, 'events.jsonl'));

  const options = { runs: RUNS, slowMs: Number.POSITIVE_INFINITY, slowRuns: RUNS, timeoutMs: TIMEOUT_MS, scratch: root };
  const fresh = (name: string, run: number) => join(root, `${name}-${run}`);
  console.log(
    `gapflow bench: sync (issue 32); ${FINDINGS.toLocaleString('en')} findings (${mib(statSync(bigFile).size)} of SARIF), a re-sync of ${CHANGES.toLocaleString('en')} changes; ${RUNS} interleaved runs each after a warm-up, medians; node ${process.version}`,
  );

  const [sync, append] = await series(
    [(run) => ({ ...gapflow(fresh('sync', run), 'sync', bigFile), cwd: project }), (run) => gapflow(fresh('append', run), 'append', '--file', batchFile)],
    {
      ...options,
      before: (index, run) => {
        const dir = fresh(index === 0 ? 'sync' : 'append', run);
        rmSync(dir, { recursive: true, force: true });
        init(dir);
        if (run > 0) rmSync(fresh(index === 0 ? 'sync' : 'append', run - 1), { recursive: true, force: true });
      },
    },
  );
  console.log(row(`sync of ${FINDINGS.toLocaleString('en')} findings into a fresh session vs append of the same gap events`, sync!, append!, 1.5));

  const [resync, reappend] = await series(
    [
      (run) => ({ ...gapflow(fresh('resync', run), 'sync', changedFile), cwd: project }),
      (run) => gapflow(fresh('reappend', run), 'append', '--file', changesFile),
    ],
    {
      ...options,
      before: (index, run) => {
        const name = index === 0 ? 'resync' : 'reappend';
        rmSync(fresh(name, run), { recursive: true, force: true });
        cpSync(template, fresh(name, run), { recursive: true });
        settleWrites(join(fresh(name, run), 'events.jsonl'));
        if (run > 0) rmSync(fresh(name, run - 1), { recursive: true, force: true });
      },
    },
  );
  console.log(
    row(
      `re-sync with ${CHANGES.toLocaleString('en')} changes on ${FINDINGS.toLocaleString('en')} gaps vs append of the same ${CHANGES.toLocaleString('en')} gap events`,
      resync!,
      reappend!,
      null,
    ),
  );
  console.log(
    `  memory: the sync's peak RSS ${mib(sync!.rss)} for ${mib(statSync(bigFile).size)} of SARIF (append's ${mib(append!.rss)} for its ${mib(statSync(batchFile).size)} batch); the re-sync's ${mib(resync!.rss)}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

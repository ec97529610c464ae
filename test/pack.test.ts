import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, repoRoot } from './docs/markdown.js';
import { WEIGHT } from './support.js';

/*
 * What `npm pack` ships, and that a project which installs the tarball can
 * use it as the README says. `npm test` builds first; the pack runs with
 * --ignore-scripts so that `prepare` does not rebuild dist/ under the tests
 * running beside this one.
 */

interface PackedFile {
  path: string;
}
interface Packed {
  filename: string;
  integrity: string;
  files: PackedFile[];
}
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  license?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}
interface Lock {
  name?: string;
  lockfileVersion?: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

function succeeded(what: string, done: SpawnSyncReturns<string>): string {
  expect(done.error, what).toBeUndefined();
  expect(done.status, `${what}: ${done.stderr}`).toBe(0);
  return done.stdout;
}

/**
 * A lockfile for a project that depends on the tarball alone, pinning the
 * tarball's dependencies to the versions this repository installs (its own
 * lockfile, dev-only packages left out), so `npm ci --offline` installs them
 * from the npm cache that this repository's `npm ci` filled.
 */
function consumerLock(tarball: string, integrity: string): Lock {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as Lock;
  const self = lock.packages['']!;
  const packages: Record<string, LockEntry> = {
    '': { dependencies: { gapflow: `file:${tarball}` } },
    'node_modules/gapflow': {
      version: self.version!,
      resolved: `file:${tarball}`,
      integrity,
      license: self.license!,
      dependencies: self.dependencies!,
      bin: self.bin!,
      engines: self.engines!,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path.startsWith('node_modules/') && !entry.dev) packages[path] = entry;
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

describe('npm pack', () => {
  let work: string;
  let packed: Packed;
  let consumer: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gapflow-pack-'));
    const out = succeeded('npm pack', npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], repoRoot));
    [packed] = JSON.parse(out) as [Packed];

    // A project that installs the tarball: offline from the npm cache, else (a cache without these packages) from the registry.
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    const tarball = `../${packed.filename}`;
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { gapflow: `file:${tarball}` } }, null, 2),
    );
    writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(consumerLock(tarball, packed.integrity), null, 2));
    const offline = npm(['ci', '--offline', '--no-audit', '--no-fund'], consumer);
    if (offline.status !== 0 && /ENOTCACHED/.test(offline.stderr)) {
      rmSync(join(consumer, 'package-lock.json'));
      succeeded('npm install from the registry', npm(['install', join(work, packed.filename), '--no-audit', '--no-fund'], consumer));
    } else succeeded('npm ci --offline', offline);
  }, 180_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships the CLI, the library with its types, the JSON Schema, the README and the LICENSE', () => {
    const paths = packed.files.map((f) => f.path);
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/gapflow.cjs', // the bin: a write runs from session-commands.cjs, any other call from gapflow.js
      'dist/gapflow.js',
      'dist/head-answers.js', // the short path of next, the stop hook and a current state --json
      'dist/session-commands.js', // the write commands, loaded from session-commands.cjs through the code cache
      'dist/session-commands.cjs',
      'dist/chain-worker.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'events/schema.json',
    ])
      expect(paths).toContain(path);
    expect(paths.some((p) => p.startsWith('dist/chunks/'))).toBe(true); // the commands the bin loads lazily
  });

  it('ships no bench, examples, tests, diagram generator, source maps or TypeScript sources', () => {
    const paths = packed.files.map((f) => f.path);
    const unwanted = paths.filter(
      (p) =>
        /^(dist\/)?(bench|examples|test|visualizations)\//.test(p) ||
        p.endsWith('.map') ||
        (p.endsWith('.ts') && !p.endsWith('.d.ts')) ||
        /^(src|events|machines)\/.*\.(js|ts)$/.test(p),
    );
    expect(unwanted).toEqual([]);
    // Beside dist/, only the schema and the files npm always ships.
    expect(paths.filter((p) => !p.startsWith('dist/')).sort()).toEqual(['LICENSE', 'README.md', 'events/schema.json', 'package.json']);
  });

  it('installs with every dependency the tarball declares (npm ls finds nothing missing or invalid)', () => {
    const ls = npm(['ls', '--all', '--json'], consumer);
    expect(ls.status, ls.stdout).toBe(0);
    const tree = JSON.parse(ls.stdout) as { dependencies: { gapflow: { version: string } } };
    expect(tree.dependencies.gapflow.version).toBe(manifest.version);
  });

  it('the installed bin answers --version', () => {
    const version = spawnSync(join(consumer, 'node_modules', '.bin', 'gapflow'), ['--version'], { cwd: consumer, encoding: 'utf8' });
    expect(version.stderr).toBe('');
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it('the installed bin records a write and reads it back (the write bundle beside the bin, the rest through gapflow.js)', { timeout: 60_000 }, () => {
    const bin = join(consumer, 'node_modules', '.bin', 'gapflow');
    const dir = join(work, 'installed-session');
    const call = (args: string[]) =>
      spawnSync(bin, [...args, '--dir', dir], { cwd: consumer, encoding: 'utf8', env: { ...process.env, GAPFLOW_CODE_CACHE: 'off' } });
    expect(call(['init']).status).toBe(0);
    const opened = call(['gap', 'open', 'G-1', '--severity', 'HIGH', '--title', 'installed']);
    expect(opened.stderr).toBe('');
    expect(opened.stdout).toBe('Opened G-1 (HIGH) at baseline; open count 1\n');
    const state = JSON.parse(call(['state', '--json']).stdout) as { gaps: { id: string }[] };
    expect(state.gaps.map((gap) => gap.id)).toEqual(['G-1']);
  });

  it("runs the README's library example in the consumer project and prints what the README says", () => {
    const [example] = blocks('README.md', 'The library', 'js');
    const [printed] = blocks('README.md', 'The library', '');
    expect(example).toContain("from 'gapflow'");
    writeFileSync(join(consumer, 'example.mjs'), example!);
    const run = spawnSync(process.execPath, ['example.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(printed);
    // The figures follow the rules: a HIGH resolved and a LOW found, then a MEDIUM found.
    expect(run.stdout).toContain(`round 1: weighted net ${WEIGHT.HIGH - WEIGHT.LOW}, CONVERGING`);
    expect(run.stdout).toContain(`round 2: weighted net ${-WEIGHT.MEDIUM}, FLAT`);
  });

  it('exports the JSON Schema as gapflow/schema.json, the same text as events/schema.json', () => {
    const script = "import { createRequire } from 'node:module'; console.log(createRequire(import.meta.url).resolve('gapflow/schema.json'));";
    const resolved = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, encoding: 'utf8' });
    expect(resolved.stderr).toBe('');
    expect(readFileSync(resolved.stdout.trim(), 'utf8')).toBe(readFileSync(join(repoRoot, 'events', 'schema.json'), 'utf8'));
  });

  it('exports importedSession: a recorded session of three timed lines comes in with its times', () => {
    const lines = [
      { type: 'session.started', data: {}, at: '2026-01-05T09:00:00Z' },
      { type: 'gap.opened', data: { id: 'GAP-1', severity: 'HIGH' }, at: '2026-01-05T09:10:00Z' },
      { type: 'round.started', data: {}, at: '2026-01-06T10:00:00Z' },
    ];
    writeFileSync(join(consumer, 'recorded.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const script = [
      "import { readFileSync } from 'node:fs';",
      "import { importedSession } from 'gapflow';",
      "const requests = readFileSync('recorded.jsonl', 'utf8').split('\\n').map((line) => { const { at, ...body } = JSON.parse(line); return { body, at }; });",
      'const { events, view } = importedSession(requests);',
      'console.log(JSON.stringify({ at: events.map((e) => e.at), types: events.map((e) => e.type), open: view.open.count, round: view.rounds.length }));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      at: ['2026-01-05T09:00:00.000Z', '2026-01-05T09:10:00.000Z', '2026-01-06T10:00:00.000Z'],
      types: ['session.started', 'gap.opened', 'round.started'],
      open: 1,
      round: 1,
    });
  });

  it('types a TypeScript consumer from the shipped .d.ts: a known severity compiles, an unknown one does not', () => {
    writeFileSync(
      join(consumer, 'typed.ts'),
      [
        "import { createMemorySession } from 'gapflow';",
        'const session = createMemorySession();',
        "session.openGap('GAP-1', 'HIGH');",
        '// @ts-expect-error: not a severity',
        "session.openGap('GAP-2', 'SEVERE');",
        '',
      ].join('\n'),
    );
    // The consumer has no @types/node: the package's types must stand without the caller's.
    const compilerOptions = { noEmit: true, strict: true, skipLibCheck: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [] };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.ts'] }));
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    expect(checked.stdout).toBe('');
    expect(checked.status).toBe(0);
  }, 60_000);
});

import { spawnSync } from 'node:child_process';
import type * as NodeFs from 'node:fs';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { atBaseline, expectRefused, resealed, Sandbox } from '../cli/helpers.js';

/*
 * Always a way out: no state of the session folder that gapflow or a crash
 * can leave blocks both `init` and `repair`; a reader needs neither write
 * access nor the lock; what gapflow creates has the modes it means, whatever
 * the umask; whole-file writes reach the disk; `verify --json` names the line.
 */

/** The bundle `npm run build` writes: the bin, the files it loads beside it (the short path's, the writes', the workers') and its chunks. */
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
const BUNDLE = [...readdirSync(DIST).filter((name) => /\.c?js$/.test(name)), 'chunks'];
const BIN = join(DIST, 'gapflow.cjs');
const SPAWN_BUDGET_MS = 30_000;

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

describe('an empty events.jsonl (the log deleted under a writer) is no dead end', () => {
  it('init starts a session over it', () => {
    box.writeLog('');
    const result = box.ok('init');
    expect(result.stdout).toContain('Created a session');
    expect(box.logLines()).toHaveLength(1);
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 0 });
  });

  it('repair removes it, and init then starts afresh', () => {
    box.writeLog('');
    const repaired = box.ok('repair');
    expect(repaired.stdout).toMatch(/^Removed .*events\.jsonl: an empty file, no session\. `gapflow init` starts a session there\.\n$/);
    expect(existsSync(box.logPath)).toBe(false);
    box.ok('init');
  });

  it('a reader names the empty file and both ways out, in one line', () => {
    box.writeLog('');
    expectRefused(box, ['state'], [/events\.jsonl line 1: the log is empty/, /gapflow init/, /gapflow repair/]);
  });

  it('init still refuses a log that holds a session', () => {
    atBaseline(box);
    expectRefused(box, ['init'], [/already holds a session/]);
  });
});

describe('readers need neither write access nor the lock', () => {
  it(
    'state and verify on a torn log in a folder the reader cannot write: the torn line is named, no permission error',
    () => {
      atBaseline(box);
      box.writeLog(`${readFileSync(box.logPath, 'utf8')}{"v":2,"seq":4`);
      // Root may write anywhere, so the reader runs as nobody; anyone else loses write access to the folder.
      const asRoot = process.getuid?.() === 0;
      chmodSync(box.root, 0o755);
      chmodSync(box.dir, 0o555);
      // A copy of the bundle beside the session: nobody may not be able to reach the checkout itself.
      for (const name of BUNDLE) cpSync(join(DIST, name), join(box.root, name), { recursive: true });
      const bin = join(box.root, 'gapflow.cjs');
      chmodSync(bin, 0o644);
      try {
        for (const command of ['state', 'verify']) {
          const result = spawnSync(process.execPath, [bin, command, '--dir', box.dir], {
            encoding: 'utf8',
            timeout: SPAWN_BUDGET_MS,
            ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
          });
          expect(result.status, result.stderr).toBe(1);
          expect(result.stderr).toMatch(/^gapflow: .*events\.jsonl line 4: .*torn last line.*gapflow repair/);
          expect(result.stderr).not.toMatch(/EACCES|EROFS|EPERM|permission/i);
        }
        expect(readdirSync(box.dir).filter((name) => name.includes('.lock'))).toEqual([]);
      } finally {
        chmodSync(box.dir, 0o755);
      }
    },
    SPAWN_BUDGET_MS * 3,
  );
});

describe('files are created with their own modes whatever the umask', () => {
  it(
    'under umask 000: the folder 0755, the log, status.md and a torn-tail copy 0644, the hook state 0600',
    () => {
      const dir = box.dir;
      const shell = (script: string) => {
        const result = spawnSync('sh', ['-c', `umask 000; ${script}`], { encoding: 'utf8', timeout: SPAWN_BUDGET_MS });
        expect(result.status, result.stderr).toBe(0);
      };
      const gf = (args: string) => `"${process.execPath}" "${BIN}" ${args} --dir "${dir}"`;
      shell(gf('init'));
      shell(gf('status --write'));
      const hookState = fileURLToPath(new URL('../../dist/src/log/index.js', import.meta.url));
      shell(
        `"${process.execPath}" --input-type=module -e 'import { writeHookBlocks } from "${hookState}"; writeHookBlocks(process.argv[1], "agent", "main", 2);' "${dir}"`,
      );
      writeFileSync(box.logPath, `${readFileSync(box.logPath, 'utf8')}{"v":2,"seq":2`);
      shell(gf('repair'));
      const torn = readdirSync(dir).find((name) => name.startsWith('events.jsonl.torn-'))!;
      expect(mode(dir)).toBe('755');
      expect(mode(box.logPath)).toBe('644');
      expect(mode(box.statusPath)).toBe('644');
      expect(mode(join(dir, torn))).toBe('644');
      expect(mode(join(dir, 'hook-state.json'))).toBe('600');
    },
    SPAWN_BUDGET_MS * 6,
  );
});

describe('a symlink at the log path is refused, never followed', () => {
  it('repair and init leave the symlink and its target untouched', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'gapflow-target-'));
    try {
      atBaseline(box);
      const target = join(elsewhere, 'target.jsonl');
      const torn = `${readFileSync(box.logPath, 'utf8')}{"v":2,"seq":4`;
      writeFileSync(target, torn);
      rmSync(box.logPath);
      symlinkSync(target, box.logPath);
      expectRefused(box, ['repair'], [/events\.jsonl/, /symbolic link|symlink/]);
      expectRefused(box, ['init'], [/events\.jsonl/]);
      expect(readFileSync(target, 'utf8')).toBe(torn);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('whole-file writes reach the disk', () => {
  it('status.md is fsynced before it is renamed into place, and its folder after', async () => {
    box.ok('init');
    const fs = createRequire(import.meta.url)('node:fs') as typeof NodeFs;
    const original = fs.fsyncSync;
    const synced: string[] = [];
    fs.fsyncSync = (fd: number) => {
      synced.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
      original(fd);
    };
    try {
      // The log takes fsyncSync from node:fs when it loads: a fresh copy of it takes the watching one.
      vi.resetModules();
      const log = await import('../../src/log/index.js');
      log.writeStatusFile(box.dir, '# status\n');
    } finally {
      fs.fsyncSync = original;
      vi.resetModules();
    }
    expect(synced).toHaveLength(2);
    expect(synced[0]).toMatch(new RegExp(`^${box.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/status\\.md\\..*\\.tmp$`));
    expect(synced[1]).toBe(box.dir);
    expect(readFileSync(box.statusPath, 'utf8')).toBe('# status\n');
  });
});

describe('verify --json always names the line', () => {
  it('a sealed line that breaks a rule: the audit finding names line 4, as its message does', () => {
    atBaseline(box);
    box.ok('gap', 'move', 'GAP-H1', 'IN_PROGRESS');
    // Sealed again after the edit, as a careful hand-editor would: the chain cannot tell, the audit can.
    box.writeLog(resealed(box.logLines().map((line, i) => (i === 3 ? line.replace('IN_PROGRESS', 'ACCEPTED') : line))));
    const result = box.gf('verify', '--json');
    const report = JSON.parse(result.stdout) as { findings: { line: number; message: string }[] };
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]!.line).toBe(4);
    expect(report.findings[0]!.message).toMatch(/GAP-H1 is OPEN/);
  });

  it('an empty log: line 1', () => {
    box.writeLog('');
    const result = box.gf('verify', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, line: 1, events: 0 });
  });
});

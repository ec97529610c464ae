/**
 * `npm run demo`: plays a realistic refinement session through the gapflow
 * CLI into a fresh temporary folder, printing each round's verdict as it goes
 * and status.md at the end. Eight rounds: progress, a flat round, a CRITICAL
 * override and a narrow-scope decision, a stall and accepted complexity, then
 * convergence.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The bundled command that `npm ci` builds (package.json `bin`).
const bin = fileURLToPath(new URL('../gapflow.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gapflow-demo-'));
const quiet = new Set(['gap']);
const keep = process.argv.includes('--keep');

function gapflow(...args: string[]): string {
  const out = execFileSync(process.execPath, [bin, ...args, '--dir', dir], { encoding: 'utf8' });
  const shown = quiet.has(args[0]!)
    ? out
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')
    : out.trimEnd();
  process.stdout.write(`$ gapflow ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n${shown}\n`);
  return out;
}

function heading(text: string): void {
  process.stdout.write(`\n=== ${text} ===\n`);
}

function open(id: string, severity: string, title: string, ...more: string[]): void {
  gapflow('gap', 'open', id, '--severity', severity, '--title', title, ...more);
}

function move(id: string, ...states: string[]): void {
  for (const state of states) gapflow('gap', 'move', id, state);
}

process.stdout.write(`gapflow demo: a session in ${dir}${keep ? '' : ' (removed at the end; `npm run demo -- --keep` keeps it)'}\n`);
heading('Setup: 8 baseline gaps');
gapflow('init', '--preset', 'auto');
open('GAP-FLOW-001', 'HIGH', 'Round lifecycle undefined');
open('GAP-FLOW-002', 'HIGH', 'No stall detection');
open('GAP-FLOW-003', 'HIGH', 'Parser contract missing');
open('GAP-UX-001', 'MEDIUM', 'Status output format unclear');
open('GAP-UX-002', 'MEDIUM', 'No progress display');
open('GAP-COMM-001', 'MEDIUM', 'Agent handoff message format');
open('GAP-COMM-002', 'LOW', 'Message ids not unique');
open('GAP-DOC-001', 'LOW', 'Glossary missing');

heading('Round 1: progress');
gapflow('round', 'start');
move('GAP-FLOW-001', 'IN_PROGRESS', 'PROPOSED', 'ACCEPTED');
move('GAP-UX-001', 'RESOLVED');
open('GAP-FLOW-008', 'MEDIUM', 'Round timeout undefined', '--spawned-by', 'GAP-FLOW-001');
gapflow('round', 'close');

heading('Round 2: a flat round');
move('GAP-COMM-002', 'RESOLVED');
open('GAP-UX-010', 'MEDIUM', 'Colour scheme for states', '--spawned-by', 'GAP-UX-002', '--non-blocking');
gapflow('round', 'close');

heading('Round 3: a CRITICAL gap overrides the thresholds');
move('GAP-FLOW-002', 'RESOLVED');
move('GAP-FLOW-003', 'IN_PROGRESS', 'PROPOSED', 'ACCEPTED');
open('GAP-FLOW-020', 'CRITICAL', 'Parser validation undefined');
open('GAP-COMM-010', 'MEDIUM', 'Error envelope for parser faults', '--spawned-by', 'GAP-FLOW-003', '--non-blocking');
open('GAP-COMM-011', 'MEDIUM', 'Retry policy for parser faults', '--spawned-by', 'GAP-FLOW-003', '--non-blocking');
gapflow('round', 'close');
gapflow('prompt');

heading('The user narrows scope');
gapflow('decide', 'narrow-scope', '--gaps', 'GAP-COMM-010,GAP-COMM-011');

heading('Round 4: the CRITICAL gap is settled');
move('GAP-FLOW-020', 'IN_PROGRESS', 'PROPOSED', 'ACCEPTED');
move('GAP-FLOW-008', 'RESOLVED');
gapflow('round', 'close');

heading('Round 5: flat');
move('GAP-UX-002', 'IN_PROGRESS');
open('GAP-DOC-002', 'LOW', 'Examples for every command');
gapflow('round', 'close');

heading('Round 6: flat again, so the loop has stalled');
gapflow('gap', 'move', 'GAP-COMM-001', 'IN_PROGRESS');
gapflow('gap', 'move', 'GAP-COMM-001', 'BLOCKED', '--reason', 'waits on the vendor API decision');
gapflow('round', 'close');
gapflow('prompt');

heading('The user accepts the complexity');
gapflow('decide', 'accept-complexity');

heading('Round 7: progress');
move('GAP-UX-002', 'RESOLVED');
move('GAP-UX-010', 'RESOLVED');
move('GAP-COMM-001', 'IN_PROGRESS', 'RESOLVED');
move('GAP-DOC-001', 'RESOLVED');
move('GAP-DOC-002', 'RESOLVED');
gapflow('round', 'close');

heading('Round 8: the deferred gaps are taken back and closed');
move('GAP-COMM-010', 'OPEN', 'RESOLVED');
move('GAP-COMM-011', 'OPEN', 'WONT_FIX');
gapflow('round', 'close');

heading('Final summary');
gapflow('summary');

heading('status.md');
gapflow('status', '--write');
gapflow('status');

if (!keep) rmSync(dir, { recursive: true, force: true });

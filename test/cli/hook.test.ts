import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  atBaseline,
  completeAfterRoundOne,
  convergingAfterRoundOne,
  divergingAfterRoundOne,
  flatAfterRoundOne,
  inRoundOne,
  pausedAfterRoundOne,
  runCli,
  Sandbox,
  type CliResult,
} from './helpers.js';
import { SESSION, stopInput, subagentStopInput } from './hook-inputs.js';

/** Runs `gapflow hook claude <argv>` in-process with `stdin` as the hook's input. */
function hookCall(stdin: string, argv: string[], cwd: string, env: Record<string, string> = {}): CliResult {
  return runCli(['hook', 'claude', ...argv], { cwd, env, stdin });
}

interface HookOutput {
  decision?: string;
  reason?: string;
  systemMessage?: string;
}

/** Every answer is exit 0 and one JSON object on one line: Claude Code reads exit 2 as a block. */
function parsed(result: CliResult): HookOutput {
  expect(result.code).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd()).not.toContain('\n');
  return JSON.parse(result.stdout) as HookOutput;
}

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const hook = (input: Record<string, unknown> | string, ...argv: string[]) =>
  hookCall(typeof input === 'string' ? input : JSON.stringify(input), [...argv, '--dir', box.dir], box.root);

describe('gapflow hook claude: the decision in its priority order', () => {
  it('CONVERGING between rounds: blocks, naming the round to start and the open gaps by severity', () => {
    convergingAfterRoundOne(box);
    const result = hook(stopInput(box.root));
    const out = parsed(result);
    expect(result.stderr).toBe('');
    expect(out.decision).toBe('block');
    expect(out.reason).toContain('CONVERGING');
    expect(out.reason).toContain('Start round 2 (gapflow round start)');
    expect(out.reason).toContain('HIGH GAP-H1');
    expect(out.systemMessage).toBeUndefined();
  });

  it('an open round: blocks, naming the round to close', () => {
    inRoundOne(box);
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBe('block');
    expect(out.reason).toContain('round 1 is open');
    expect(out.reason).toContain('gapflow round close');
    expect(out.reason).toContain('- HIGH GAP-H1: Parser\n- MEDIUM GAP-M1: Retries\n');
  });

  it('FLAT: blocks and asks for a different approach', () => {
    flatAfterRoundOne(box);
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBe('block');
    expect(out.reason).toContain('FLAT');
    expect(out.reason).toContain('no net progress');
  });

  it('DIVERGENCE_WARNING: lets it stop and puts the decision prompt in front of the user, its options first', () => {
    divergingAfterRoundOne(box);
    const prompt = box.ok('prompt').stdout;
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBeUndefined();
    const message = out.systemMessage!;
    // The same lines as `gapflow prompt` (nothing cut: it is short), the options moved up under the state.
    expect(message.split('\n').sort()).toEqual(prompt.split('\n').sort());
    expect(message).toMatch(/^Session Progress: Round 1 of max 10\nConvergence State: DIVERGENCE_WARNING\n\n=== Options ===\n1\. Narrow scope/);
    expect(message.indexOf('=== Options ===')).toBeLessThan(message.indexOf('=== This Round ==='));
    expect(message).toContain('gapflow decide prioritize-critical');
  });

  it('PAUSED: lets it stop, saying how to resume', () => {
    pausedAfterRoundOne(box);
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBeUndefined();
    expect(out.systemMessage).toContain('PAUSED');
    expect(out.systemMessage).toContain('gapflow decide resume');
  });

  it('COMPLETE: lets it stop with the outcome, writing nothing', () => {
    completeAfterRoundOne(box);
    const before = box.logBytes();
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBeUndefined();
    expect(out.systemMessage).toContain('COMPLETE (ABANDONED)');
    expect(Buffer.compare(box.logBytes()!, before!)).toBe(0);
  });

  it('SubagentStop is decided the same way', () => {
    convergingAfterRoundOne(box);
    expect(parsed(hook(subagentStopInput(box.root))).decision).toBe('block');
  });
});

describe('gapflow hook claude: the agent asks to stop (atoms policy flags)', () => {
  const atomsSession = () => {
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '5', '--resolved', '0');
  };

  it('goes on while the atoms DAG shrinks and nothing is requested', () => {
    atomsSession();
    expect(parsed(hook(stopInput(box.root))).decision).toBe('block');
  });

  it('redirect requested: lets it stop, first of all, saying so (not the decision prompt)', () => {
    atomsSession();
    box.ok('record', 'atoms', '--pending', '4', '--resolved', '1', '--redirect-requested');
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBeUndefined();
    expect(out.systemMessage).toContain('redirect requested');
    expect(out.systemMessage).not.toBe(box.ok('prompt').stdout);
  });

  it('stop requested: lets it stop; the request is in the log and ended the session', () => {
    atomsSession();
    box.ok('record', 'atoms', '--pending', '4', '--resolved', '1', '--stop-requested');
    const before = box.logBytes();
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBeUndefined();
    expect(out.systemMessage).toContain('stop requested');
    const log = readFileSync(box.logPath, 'utf8');
    expect(log).toMatch(/"stopRequested":true/);
    expect(JSON.parse(box.ok('state', '--json').stdout)).toMatchObject({ state: 'COMPLETE', outcome: 'STOPPED' });
    expect(Buffer.compare(box.logBytes()!, before!), 'the hook itself writes nothing').toBe(0);
  });

  it('a later iteration without the flag lets the loop go on again', () => {
    atomsSession();
    box.ok('record', 'atoms', '--pending', '4', '--resolved', '1', '--redirect-requested');
    box.ok('decide', 'accept-complexity');
    box.ok('record', 'atoms', '--pending', '3', '--resolved', '2');
    expect(parsed(hook(stopInput(box.root))).decision).toBe('block');
  });
});

describe('gapflow hook claude: the block cap under stop_hook_active', () => {
  it('blocks 5 times in a row by default, then lets it stop with a message saying so', () => {
    convergingAfterRoundOne(box);
    const decisions: (string | undefined)[] = [];
    let last: HookOutput = {};
    for (let i = 0; i < 6; i++) {
      last = parsed(hook(stopInput(box.root, { stop_hook_active: i > 0 })));
      decisions.push(last.decision);
    }
    expect(decisions).toEqual(['block', 'block', 'block', 'block', 'block', undefined]);
    expect(last.systemMessage).toContain('5 times in a row');
    expect(last.systemMessage).toContain('--max-blocks 5');
    // After the cap the count starts again: the next stop is blocked once more.
    expect(parsed(hook(stopInput(box.root, { stop_hook_active: true }))).decision).toBe('block');
  });

  it('--max-blocks sets the cap', () => {
    convergingAfterRoundOne(box);
    const first = parsed(hook(stopInput(box.root), '--max-blocks', '2'));
    const second = parsed(hook(stopInput(box.root, { stop_hook_active: true }), '--max-blocks', '2'));
    const third = parsed(hook(stopInput(box.root, { stop_hook_active: true }), '--max-blocks', '2'));
    expect([first.decision, second.decision, third.decision]).toEqual(['block', 'block', undefined]);
    expect(second.reason).toContain('Block 2 of at most 2');
  });

  it('a new turn (stop_hook_active false) starts the count afresh', () => {
    convergingAfterRoundOne(box);
    for (let i = 0; i < 3; i++) parsed(hook(stopInput(box.root, { stop_hook_active: i > 0 }), '--max-blocks', '3'));
    const fresh = parsed(hook(stopInput(box.root, { stop_hook_active: false }), '--max-blocks', '3'));
    expect(fresh.reason).toContain('Block 1 of at most 3');
  });

  it('each subagent has its own count', () => {
    convergingAfterRoundOne(box);
    parsed(hook(stopInput(box.root), '--max-blocks', '1'));
    const sub = parsed(hook(subagentStopInput(box.root, { stop_hook_active: true }), '--max-blocks', '1'));
    expect(sub.decision).toBe('block');
    expect(parsed(hook(stopInput(box.root, { stop_hook_active: true }), '--max-blocks', '1')).decision).toBeUndefined();
  });
});

describe('gapflow hook claude: binding to one agent session', () => {
  it('the first call binds an unbound session (a session.bound event); a later call from another session id is let stop and touches nothing', () => {
    convergingAfterRoundOne(box);
    parsed(hook(stopInput(box.root)));
    const bound = box.logLines().map((l) => JSON.parse(l) as { type: string; data: { agentSession?: string } });
    expect(bound.filter((e) => e.type === 'session.bound').map((e) => e.data.agentSession)).toEqual([SESSION]);
    expect(box.stateJson().agentSession).toBe(SESSION);

    const log = box.logBytes()!;
    const side = readFileSync(join(box.dir, 'hook-state.json'));
    const foreign = hook(stopInput(box.root, { session_id: 'another-session', stop_hook_active: true }));
    expect(parsed(foreign)).toEqual({});
    expect(foreign.stderr).toBe('');
    expect(Buffer.compare(box.logBytes()!, log)).toBe(0);
    expect(Buffer.compare(readFileSync(join(box.dir, 'hook-state.json')), side)).toBe(0);
  });

  it('gapflow init --agent-session binds from the start', () => {
    box.ok('init', '--agent-session', 'other-agent');
    box.steps('gap open GAP-1 --severity HIGH', 'round start');
    const before = box.logBytes()!;
    expect(parsed(hook(stopInput(box.root)))).toEqual({});
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    expect(parsed(hook(stopInput(box.root, { session_id: 'other-agent' }))).decision).toBe('block');
  });

  it('gapflow init refuses a malformed --agent-session before it creates anything', () => {
    const result = box.gf('init', '--agent-session', 'x'.repeat(300));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('agentSession');
    expect(existsSync(box.logPath)).toBe(false);
  });

  it('a later session.bound (through append) hands the loop to a new agent session', () => {
    atBaseline(box, '--agent-session', 'old-agent');
    const result = runAppend(box, `${JSON.stringify({ type: 'session.bound', data: { agentSession: SESSION } })}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(parsed(hook(stopInput(box.root))).decision).toBe('block');
  });
});

describe('gapflow hook claude: never traps the user', () => {
  it('no session in the folder --dir names: lets it stop and tells the user which folder, creating nothing', () => {
    const out = hook(stopInput(box.root));
    const answer = parsed(out);
    expect(Object.keys(answer)).toEqual(['systemMessage']);
    expect(answer.systemMessage).toContain(`no session in ${box.dir}, the folder --dir names`);
    expect(out.stderr).toMatch(/^gapflow hook: no session in .*letting the agent stop\n$/);
    expect(existsSync(box.dir)).toBe(false);
  });

  it.each([
    ['not JSON', '{"session_id": "abc", '],
    ['empty', ''],
    ['a JSON array', '[]'],
    ['no session_id', JSON.stringify({ hook_event_name: 'Stop', stop_hook_active: false })],
    ['another hook event', JSON.stringify({ session_id: SESSION, hook_event_name: 'PreToolUse', tool_name: 'Bash' })],
    ['stop_hook_active not a boolean', JSON.stringify({ session_id: SESSION, hook_event_name: 'Stop', stop_hook_active: 'yes' })],
  ])('malformed stdin (%s): lets it stop, telling the user (and one line on stderr), exit 0, log untouched', (_name, stdin) => {
    convergingAfterRoundOne(box);
    const before = box.logBytes()!;
    const result = hook(stdin);
    const answer = parsed(result);
    expect(Object.keys(answer)).toEqual(['systemMessage']);
    expect(answer.systemMessage).toMatch(/^gapflow hook: stdin is not .*The hook let the agent stop/);
    expect(result.stderr).toMatch(/^gapflow hook: .*letting the agent stop\n$/);
    expect(result.stderr.trimEnd()).not.toContain('\n');
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a broken log lets it stop and tells the user what is wrong with it', () => {
    convergingAfterRoundOne(box);
    box.writeLog(`${readFileSync(box.logPath, 'utf8')}{"v":1,"seq":99\n`);
    const result = hook(stopInput(box.root));
    const answer = parsed(result);
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toMatch(/^gapflow hook: .*line \d+/);
    expect(result.stderr).toContain('line');
  });

  it('a bad option still exits 0, lets it stop and tells the user', () => {
    convergingAfterRoundOne(box);
    const result = hook(stopInput(box.root), '--max-blocks', 'lots');
    const answer = parsed(result);
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toContain('--max-blocks takes a whole number, not "lots"');
    expect(result.stderr).toContain('--max-blocks');
  });
});

describe('gapflow hook claude: finding the session', () => {
  let elsewhere: string;
  beforeEach(() => {
    elsewhere = mkdtempSync(join(tmpdir(), 'gapflow-elsewhere-'));
  });
  afterEach(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('without --dir or $GAPFLOW_DIR it uses <cwd>/.gapflow, the cwd from the hook input', () => {
    const project = new Sandbox();
    try {
      const dotGapflow = join(project.root, '.gapflow');
      expect(runSetup(['init', '--dir', dotGapflow], project.root).code).toBe(0);
      expect(runSetup(['gap', 'open', 'GAP-1', '--severity', 'LOW', '--dir', dotGapflow], project.root).code).toBe(0);
      const out = parsed(hookCall(JSON.stringify(stopInput(project.root)), [], elsewhere));
      expect(out.decision).toBe('block');
      expect(out.reason).toContain('LOW GAP-1');
    } finally {
      project.remove();
    }
  });

  it('$GAPFLOW_DIR names the session', () => {
    convergingAfterRoundOne(box);
    const out = parsed(hookCall(JSON.stringify(stopInput(elsewhere)), [], elsewhere, { GAPFLOW_DIR: box.dir }));
    expect(out.decision).toBe('block');
  });

  it("a team-wide $GAPFLOW_STORE (a database) is not the hook's business: it still finds <cwd>/.gapflow", () => {
    const project = new Sandbox();
    try {
      const dotGapflow = join(project.root, '.gapflow');
      expect(runSetup(['init', '--dir', dotGapflow], project.root).code).toBe(0);
      expect(runSetup(['gap', 'open', 'GAP-1', '--severity', 'LOW', '--dir', dotGapflow], project.root).code).toBe(0);
      const env = { GAPFLOW_STORE: 'postgres://loops:secret@127.0.0.1:1/loops', GAPFLOW_SESSION: 'elsewhere' };
      const out = parsed(hookCall(JSON.stringify(stopInput(project.root)), [], elsewhere, env));
      expect(out.systemMessage).toBeUndefined();
      expect(out.decision).toBe('block');
      expect(out.reason).toContain('LOW GAP-1');
    } finally {
      project.remove();
    }
  });
});

function runAppend(sandbox: Sandbox, stdin: string): CliResult {
  return runCli(['append', '--dir', sandbox.dir], { cwd: sandbox.root, stdin });
}

describe('gapflow hook claude: review fixes', () => {
  it('a decision spends a redirect request: the hook blocks again before the next atoms record, and next says continue', () => {
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '5', '--resolved', '0');
    box.ok('record', 'atoms', '--pending', '4', '--resolved', '1', '--redirect-requested');
    expect(parsed(hook(stopInput(box.root))).systemMessage).toContain('redirect requested');
    box.ok('decide', 'accept-complexity');
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBe('block');
    expect(out.reason).toContain('record atoms');
    expect(out.reason).not.toContain('round start');
    expect(JSON.parse(box.ok('next', '--json').stdout)).toMatchObject({ action: 'continue' });
  });

  it('finds the session from a subfolder the agent cd-ed into (the nearest .gapflow upward)', () => {
    const project = box.root;
    const session = `${project}/.gapflow`;
    expect(runSetup(['init', '--dir', session], project).code).toBe(0);
    expect(runSetup(['gap', 'open', 'G-1', '--severity', 'HIGH', '--dir', session], project).code).toBe(0);
    const deeper = `${project}/src/parser`;
    mkdirSync(deeper, { recursive: true });
    const out = parsed(hookCall(JSON.stringify(stopInput(deeper)), [], deeper));
    expect(out.decision).toBe('block');
    expect(out.reason).toContain('G-1');
  });

  it('a mistyped hook command exits 1, never 2 (which Claude Code would read as "block")', () => {
    for (const argv of [
      ['Hook', 'claude'],
      ['--dir', 'hook', 'claude'],
    ]) {
      const result = runSetup(argv, box.root);
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('first calls from four agent sessions at once bind the session to exactly one of them, which alone is blocked', async () => {
    const bin = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
    for (let trial = 0; trial < 3; trial++) {
      const dir = join(box.root, `race-${trial}`);
      expect(runSetup(['init', '--dir', dir], box.root).code).toBe(0);
      expect(runSetup(['gap', 'open', 'G-1', '--severity', 'LOW', '--dir', dir], box.root).code).toBe(0);
      const calls = ['A', 'B', 'C', 'D'].map(
        (id) =>
          new Promise<string>((done) => {
            const child = spawn('node', [bin, 'hook', 'claude', '--dir', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
            child.on('close', () => done(out));
            child.stdin.end(JSON.stringify({ ...stopInput(box.root), session_id: id }));
          }),
      );
      const answers = (await Promise.all(calls)).map((out) => JSON.parse(out) as HookOutput);
      const bound = readFileSync(join(dir, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"session.bound"'));
      expect(bound, `trial ${trial}`).toHaveLength(1);
      expect(
        answers.filter((a) => a.decision === 'block'),
        `trial ${trial}`,
      ).toHaveLength(1);
    }
  }, 60_000);
});

/** A setup call through the CLI in-process, from `cwd`. */
const runSetup = (argv: string[], cwd: string): CliResult => runCli(argv, { cwd });

describe('gapflow hook claude: a paused session', () => {
  it('is not bound by a hook call (nothing is accepted while PAUSED), and a binding appended then is refused', () => {
    pausedAfterRoundOne(box);
    const before = box.logBytes()!;
    expect(parsed(hook(stopInput(box.root))).systemMessage).toContain('PAUSED');
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    expect(runAppend(box, '{"type":"session.bound","data":{"agentSession":"x"}}\n').code).toBe(1);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a hook command line is exit 1 on a usage error only when it is one; other usage errors stay 2', () => {
    expect(runSetup(['gap', 'open', 'hook'], box.root).code).toBe(2);
    expect(runSetup(['hook', 'claude', '--bogus'], box.root).code).toBe(0);
  });
});

describe('gapflow hook claude: second review', () => {
  it("inside $CLAUDE_PROJECT_DIR the search stops at its root: a loop in a folder above is not this agent's", () => {
    const outer = join(box.root, '.gapflow');
    expect(runSetup(['init', '--dir', outer], box.root).code).toBe(0);
    expect(runSetup(['gap', 'open', 'G-1', '--severity', 'LOW', '--dir', outer], box.root).code).toBe(0);
    const before = readFileSync(join(outer, 'events.jsonl'));
    const project = join(box.root, 'proj');
    const deeper = join(project, 'sub');
    mkdirSync(deeper, { recursive: true });
    const out = parsed(hookCall(JSON.stringify(stopInput(deeper)), [], deeper, { CLAUDE_PROJECT_DIR: project }));
    expect(out.decision).toBeUndefined();
    expect(Buffer.compare(readFileSync(join(outer, 'events.jsonl')), before)).toBe(0);
  });

  it('the block reason asks only for the policies not yet recorded in the open round', () => {
    box.ok('init', '--policy', 'gaps,quality');
    box.ok('gap', 'open', 'G-1', '--severity', 'LOW');
    box.ok('round', 'start');
    expect(parsed(hook(stopInput(box.root))).reason).toContain('record quality');
    box.ok('record', 'quality', '--score', '50');
    const out = parsed(hook(stopInput(box.root)));
    expect(out.decision).toBe('block');
    expect(out.reason).not.toContain('record quality');
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { convergingAfterRoundOne, divergingAfterRoundOne, inRoundOne, runCli, Sandbox, type CliResult } from './helpers.js';
import { codexStop, cursorStop, HARNESS_CASES, type Harness, type HarnessCase } from './harness-inputs.js';
import type { HookInput } from './hook-inputs.js';
import { blocks } from '../docs/markdown.js';
import { TABLE } from '../../src/cli/index.js';
import { HARNESSES } from '../../src/render/index.js';

/*
 * `gapflow hook HARNESS` on each harness's own stop input, answered in its
 * own shape: Claude Code, Codex and Copilot read `decision: "block"` with a
 * reason, Gemini CLI `decision: "deny"`, Cursor a `followup_message`; a
 * stop lets the agent go with a `systemMessage` where the harness shows
 * one (Claude Code, Codex, Gemini), else the same words on stderr. Every
 * case runs in-process (the full command) and through the bin (which
 * answers from the head when it can): the two must agree.
 */

const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const ajv = new Ajv({ strict: false, allErrors: true });
const codexOutput = ajv.compile(JSON.parse(readFileSync(join(FIXTURES, 'codex-stop.command.output.schema.json'), 'utf8')) as object);
const codexInput = ajv.compile(JSON.parse(readFileSync(join(FIXTURES, 'codex-stop.command.input.schema.json'), 'utf8')) as object);

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

type Answer = Record<string, unknown>;

/** One stop through the bin, as the harness runs it: its input on stdin, stdin closed, no gapflow variables. */
function viaBin(harness: string, input: HookInput | string, ...argv: string[]): CliResult {
  const run = spawnSync(process.execPath, [BIN, 'hook', harness, ...argv, '--dir', box.dir], {
    cwd: box.root,
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 30_000,
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** One stop in-process (the full command). */
function inProcess(harness: string, input: HookInput | string, ...argv: string[]): CliResult {
  return runCli(['hook', harness, ...argv, '--dir', box.dir], { cwd: box.root, stdin: typeof input === 'string' ? input : JSON.stringify(input) });
}

/** The contract every harness shares: exit 0, one JSON object on one line, every string under 10,000 characters; Codex's within its schema. */
function answerOf(harness: Harness, result: CliResult): Answer {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd()).not.toContain('\n');
  const answer = JSON.parse(result.stdout) as Answer;
  for (const value of Object.values(answer)) if (typeof value === 'string') expect(value.length).toBeLessThan(10_000);
  if (harness === 'codex') expect(codexOutput(answer), JSON.stringify(codexOutput.errors)).toBe(true);
  return answer;
}

/** Whether an answer keeps the agent going, in its harness's shape, and with what words. */
function kept(harness: Harness, answer: Answer): string | null {
  if (harness === 'cursor') return typeof answer.followup_message === 'string' ? answer.followup_message : null;
  const going = harness === 'gemini' ? 'deny' : 'block';
  if (answer.decision === undefined) return null;
  expect(answer.decision).toBe(going);
  return answer.reason as string;
}

/** What the user is shown: the answer's systemMessage where the harness has one, else stderr. */
function shown(harness: Harness, answer: Answer, result: CliResult): string {
  return harness === 'claude' || harness === 'codex' || harness === 'gemini' ? String(answer.systemMessage ?? '') : result.stderr;
}

/** One stop in-process, checked against the contract, with what it printed. */
function stopOnce(one: HarnessCase, input: HookInput, ...argv: string[]): { answer: Answer; result: CliResult } {
  const result = inProcess(one.harness, input, ...argv);
  const answer = answerOf(one.harness, result);
  return { answer, result };
}

// Each test spawns the bin a few times: budgets for a busy 2-core machine.
describe('each harness’s stop hook', { timeout: 60_000 }, () => {
  it('takes one harness word for each harness the answers are shaped for', () => {
    const words = TABLE.find((entry) => entry.name === 'hook')!.words as { verbs: Record<string, unknown> };
    expect(Object.keys(words.verbs)).toEqual([...HARNESSES]);
  });

  it('the Codex input the tests feed is the one its schema describes', () => {
    expect(codexInput(codexStop('/work/app')), JSON.stringify(codexInput.errors)).toBe(true);
  });

  for (const one of HARNESS_CASES) {
    describe(one.name, () => {
      it('keeps a converging loop with a round open going, naming the open gaps; the bin answers the same', () => {
        inRoundOne(box);
        const { answer } = stopOnce(one, one.input(box.root));
        const reason = kept(one.harness, answer);
        expect(reason).toContain('round 1 is open');
        expect(reason).toContain('GAP-H1');
        // The next stop, through the bin, goes on the same way (the binding is recorded now; the head answers).
        const again = answerOf(one.harness, viaBin(one.harness, one.input(box.root, true)));
        expect(kept(one.harness, again)).toContain('GAP-H1');
      });

      it('lets the agent stop when the user must decide, and says why', () => {
        divergingAfterRoundOne(box);
        const { answer, result } = stopOnce(one, one.input(box.root));
        expect(kept(one.harness, answer)).toBeNull();
        expect(shown(one.harness, answer, result)).toMatch(/decide|decision/i);
        if (one.harness === 'gemini') expect(answer.continue).toBe(false);
      });

      it('says nothing where there is no session', () => {
        const result = runCli(['hook', one.harness], { cwd: box.root, stdin: JSON.stringify(one.input(box.root)) });
        expect(answerOf(one.harness, result)).toEqual({});
        expect(result.stderr).toBe('');
      });

      it('shows a broken log to the user and never blocks', () => {
        inRoundOne(box);
        writeFileSync(box.logPath, `${readFileSync(box.logPath, 'utf8')}{"torn":`);
        for (const result of [inProcess(one.harness, one.input(box.root)), viaBin(one.harness, one.input(box.root))]) {
          const answer = answerOf(one.harness, result);
          expect(kept(one.harness, answer)).toBeNull();
          expect(shown(one.harness, answer, result)).toMatch(/^gapflow hook: /);
          expect(result.stderr).toMatch(/^gapflow hook: /);
        }
      });

      it('input it cannot read is shown to the user and never blocks', () => {
        inRoundOne(box);
        const other = one.harness === 'cursor' ? codexStop(box.root) : cursorStop([box.root]);
        for (const input of ['not json', other]) {
          const result = inProcess(one.harness, input);
          const answer = answerOf(one.harness, result);
          expect(kept(one.harness, answer)).toBeNull();
          expect(shown(one.harness, answer, result)).toMatch(/^gapflow hook: stdin is not (JSON|a .* hook input)/);
        }
      });

      it('twelve stops in a row with no progress: kept going at most --max-blocks times, then let stop', () => {
        convergingAfterRoundOne(box);
        const keptGoing = [];
        for (let stop = 0; stop < 12; stop++) {
          const input = one.harness === 'cursor' ? cursorStop([box.root], 'completed', keptGoing.filter(Boolean).length) : one.input(box.root, stop > 0);
          const answer = answerOf(one.harness, inProcess(one.harness, input, '--max-blocks', '3'));
          keptGoing.push(kept(one.harness, answer) !== null);
        }
        expect(keptGoing.slice(0, 3)).toEqual([true, true, true]);
        expect(keptGoing[3]).toBe(false);
        // Never more than 3 in a row.
        expect(keptGoing.join('')).not.toContain('truetruetruetrue');
      });
    });
  }

  for (const status of ['aborted', 'error'] as const) {
    it(`cursor: a turn the user ended (status ${status}) is never pushed on`, () => {
      inRoundOne(box);
      const result = inProcess('cursor', cursorStop([box.root], status));
      expect(kept('cursor', answerOf('cursor', result))).toBeNull();
    });
  }

  it('cursor: the session is found from the first workspace root that holds one', () => {
    const [other, project] = [join(box.root, 'other'), join(box.root, 'project')];
    for (const folder of [other, project]) mkdirSync(folder);
    const gf = (...argv: string[]) => expect(runCli([...argv, '--dir', join(project, '.gapflow')], { cwd: project }).code).toBe(0);
    gf('init');
    gf('gap', 'open', 'GAP-H1', '--severity', 'HIGH');
    gf('round', 'start');
    const result = runCli(['hook', 'cursor'], { cwd: box.root, stdin: JSON.stringify(cursorStop([other, project])) });
    expect(kept('cursor', answerOf('cursor', result))).toContain('GAP-H1');
  });

  it('a misspelled harness never blocks: exit 0, the user told the command line', () => {
    inRoundOne(box);
    for (const [harness, input] of [
      ['codx', codexStop(box.root)],
      ['Cursor', cursorStop([box.root])],
      ['copilot-cli', HARNESS_CASES[2]!.input(box.root)],
    ] as const) {
      const result = viaBin(harness, input);
      expect(result.code, harness).toBe(0);
      const answer = JSON.parse(result.stdout) as Answer;
      expect(answer.decision, harness).toBeUndefined();
      expect(answer.followup_message, harness).toBeUndefined();
      expect(String(answer.systemMessage), harness).toContain(`unknown hook "${harness}"`);
    }
  });
});

describe('docs/hooks.md: each harness’s settings', { timeout: 60_000 }, () => {
  /** Every command a settings snippet runs, wherever the harness keeps it (`command`, or Copilot's `bash`). */
  function commandsOf(settings: unknown): string[] {
    if (Array.isArray(settings)) return settings.flatMap(commandsOf);
    if (typeof settings !== 'object' || settings === null) return [];
    return Object.entries(settings).flatMap(([key, value]) =>
      (key === 'command' || key === 'bash') && typeof value === 'string' ? [value] : commandsOf(value),
    );
  }

  const SECTIONS: [string, Harness, string, (cwd: string) => HookInput][] = [
    ['Codex CLI', 'codex', 'Stop', (cwd) => codexStop(cwd)],
    ['GitHub Copilot', 'copilot', 'agentStop', (cwd) => HARNESS_CASES[2]!.input(cwd)],
    ['Cursor', 'cursor', 'stop', (cwd) => cursorStop([cwd])],
    ['Gemini CLI', 'gemini', 'AfterAgent', (cwd) => HARNESS_CASES[6]!.input(cwd)],
  ];
  for (const [heading, harness, event, input] of SECTIONS) {
    it(`${heading}: valid JSON that runs \`gapflow hook ${harness}\` on ${event}, which keeps a loop with a round open going`, () => {
      const [json] = blocks('docs/hooks.md', heading, 'json');
      const settings = JSON.parse(json!) as { hooks: Record<string, unknown> };
      expect(Object.keys(settings.hooks)).toEqual([event]);
      const commands = commandsOf(settings.hooks);
      expect(commands).toEqual([`gapflow hook ${harness}`]);
      inRoundOne(box);
      const [, , ...argv] = commands[0]!.split(' ');
      const answer = answerOf(harness, viaBin(argv[0]!, input(box.root)));
      expect(kept(harness, answer)).toContain('GAP-H1');
    });
  }
});

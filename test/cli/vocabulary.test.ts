import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  atBaseline,
  divergingAfterRoundOne,
  expectJsonFailure,
  expectOneLineError,
  expectRefused,
  expectRefusedAsJson,
  inRoundOne,
  runCli,
  Sandbox,
  type CliResult,
} from './helpers.js';

/*
 * One vocabulary (issue 14): every spelling the CLI takes, `append` takes
 * too, and the log keeps the canonical one; a bad value is refused naming
 * the field, the value, the valid words and the nearest; `--json` makes a
 * failure one JSON object with the same exit code; exit 1 is a refused or
 * invalid value, exit 2 a usage error.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

function append(stdin: string, ...flags: string[]): CliResult {
  return runCli(['append', ...flags, '--dir', box.dir], { cwd: box.root, stdin });
}

/** The log's last line, parsed. */
function lastEvent(): { type: string; data: Record<string, unknown> } {
  return JSON.parse(box.logLines().at(-1)!) as { type: string; data: Record<string, unknown> };
}

describe('every spelling the CLI takes, append takes too, and the log keeps the canonical one', () => {
  it.each(['high', 'High', 'HIGH', ' hIgH '])('severity %j: gap open --severity and a gap.opened line both record HIGH', (spelling) => {
    atBaseline(box);
    box.ok('gap', 'open', 'GAP-CLI', '--severity', spelling);
    expect(lastEvent().data.severity).toBe('HIGH');
    expect(append(jsonl({ type: 'gap.opened', data: { id: 'GAP-JSON', severity: spelling } })).code).toBe(0);
    expect(lastEvent().data).toMatchObject({ id: 'GAP-JSON', severity: 'HIGH' });
  });

  it.each(['in-progress', 'IN_PROGRESS', 'In_Progress', 'in_progress', 'IN-PROGRESS'])(
    'gap state %j: gap move and a gap.moved line both record IN_PROGRESS',
    (spelling) => {
      inRoundOne(box);
      box.ok('gap', 'move', 'GAP-H1', spelling);
      expect(lastEvent().data).toEqual({ id: 'GAP-H1', to: 'IN_PROGRESS' });
      expect(append(jsonl({ type: 'gap.moved', data: { id: 'GAP-M1', to: spelling } })).code).toBe(0);
      expect(lastEvent().data).toEqual({ id: 'GAP-M1', to: 'IN_PROGRESS' });
    },
  );

  it.each(['critical', 'Critical', 'CRITICAL'])('severity change %j: gap severity and a gap.severity_changed line both record CRITICAL', (spelling) => {
    inRoundOne(box);
    box.ok('gap', 'severity', 'GAP-M1', spelling);
    expect(lastEvent().data).toEqual({ id: 'GAP-M1', to: 'CRITICAL' });
    expect(append(jsonl({ type: 'gap.severity_changed', data: { id: 'GAP-H1', to: spelling } })).code).toBe(0);
    expect(lastEvent().data).toEqual({ id: 'GAP-H1', to: 'CRITICAL' });
  });

  it.each([
    ['narrow-scope', 'narrow_scope'],
    ['NARROW_SCOPE', 'Narrow-Scope'],
    ['narrow_scope', 'narrow-scope'],
  ])('decision %j on the CLI, %j in a decision.made line: both record narrow_scope', (cli, json) => {
    divergingAfterRoundOne(box);
    const saved = box.logBytes()!;
    box.ok('decide', cli, '--gaps', 'GAP-M1');
    expect(lastEvent().data).toMatchObject({ kind: 'narrow_scope', gaps: ['GAP-M1'] });
    box.writeLog(saved.toString('utf8'));
    expect(append(jsonl({ type: 'decision.made', data: { kind: json, gaps: ['GAP-M1'] } })).code).toBe(0);
    expect(lastEvent().data).toMatchObject({ kind: 'narrow_scope', gaps: ['GAP-M1'] });
  });

  it('event types in any case, with - for _ (`Gap.Opened`, `gap.severity-changed`)', () => {
    inRoundOne(box);
    const result = append(
      jsonl({ type: 'Gap.Opened', data: { id: 'GAP-N1', severity: 'low' } }, { type: 'GAP.SEVERITY-CHANGED', data: { id: 'GAP-N1', to: 'medium' } }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(
      box
        .logLines()
        .slice(-2)
        .map((l) => JSON.parse(l) as { type: string; data: object }),
    ).toMatchObject([
      { type: 'gap.opened', data: { id: 'GAP-N1', severity: 'LOW' } },
      { type: 'gap.severity_changed', data: { id: 'GAP-N1', to: 'MEDIUM' } },
    ]);
  });

  it("init: --preset, --complete-when, --policy and a policy's own words in any spelling are recorded as the schemas spell them", () => {
    box.ok('init', '--preset', 'Auto', '--policy', 'Gaps,QUESTIONS', '--complete-when', 'ANY', '--questions-preset', 'Aggressive');
    expect(JSON.parse(box.logLines()[0]!)).toMatchObject({
      type: 'session.started',
      data: { preset: 'auto', policies: ['gaps', 'questions'], completeWhen: 'any', policySettings: { questions: { preset: 'aggressive' } } },
    });
  });

  it('metrics of a policy named in any spelling are recorded under its name', () => {
    box.ok('init', '--policy', 'questions');
    const result = append(jsonl({ type: 'metrics.recorded', data: { policy: 'Questions', metrics: { open: 3, high: 1, medium: 1 } } }));
    expect(result.code, result.stderr).toBe(0);
    expect(
      box
        .logLines()
        .map((l) => JSON.parse(l) as { type: string; data: { policy?: string } })
        .find((e) => e.type === 'metrics.recorded')?.data.policy,
    ).toBe('questions');
    const cli = box.gf('record', 'QUESTIONS', '--open', '2', '--high', '1', '--medium', '1');
    expect(cli.code, cli.stderr).toBe(0);
  });
});

describe('a bad value is refused naming the field, the value, the valid words and the nearest', () => {
  it.each([
    [['gap', 'open', 'GAP-N1', '--severity', 'MEDUIM'], '--severity', 'MEDIUM', ['gap open GAP-N1', 'CRITICAL, HIGH, MEDIUM, LOW']],
    [['gap', 'move', 'GAP-H1', 'in-progres'], 'STATE', 'IN_PROGRESS', ['gap move GAP-H1', 'OPEN, IN_PROGRESS']],
    [['gap', 'severity', 'GAP-H1', 'hihg'], 'SEVERITY', 'HIGH', ['gap severity GAP-H1']],
    [['decide', 'narow-scope'], 'decide', 'narrow-scope', ['narrow-scope, accept-complexity']],
    [['viz', '--format', 'mermiad'], '--format', 'mermaid', ['mermaid, dot']],
    [['state', '--format', 'frontmater'], '--format', 'frontmatter', ['frontmatter']],
    [['record', 'atom'], 'POLICY', 'atoms', ['questions, atoms, forge, quality']],
  ])('`gapflow %s` names %s (exit 1; the same, as JSON, with --json)', (argv, field, meant, more) => {
    inRoundOne(box);
    const typed = argv.at(-1)!;
    const mentions = [`${field}: "${typed}" is not one of`, `(did you mean ${meant}?)`, ...more];
    expectRefused(box, argv, mentions);
    const failure = expectRefusedAsJson(box, [...argv, '--json'], 1, mentions);
    expect(failure).toMatchObject({ code: 'invalid_value', field, value: typed, suggestion: meant, remedy: `did you mean ${meant}?` });
    expect(failure.valid).toContain(meant);
  });

  it('init --preset with a word near none: the presets, no guess; as JSON the remedy lists them', () => {
    expectRefused(box, ['init', '--preset', 'huge'], ['--preset', '"huge"', 'simple, complex, large, auto']);
    const failure = expectRefusedAsJson(box, ['init', '--preset', 'huge', '--json'], 1, ['--preset']);
    expect(failure).toMatchObject({
      code: 'invalid_value',
      field: '--preset',
      value: 'huge',
      valid: ['simple', 'complex', 'large', 'auto'],
      suggestion: null,
      remedy: 'use one of simple, complex, large, auto',
    });
  });

  it.each([
    [
      { type: 'gap.opened', data: { id: 'GAP-N1', severity: 'URGENT' } },
      ['stdin line 1', 'gap.opened GAP-N1', 'data.severity', '"URGENT"', 'CRITICAL, HIGH, MEDIUM, LOW'],
      'data.severity',
    ],
    [{ type: 'gap.moved', data: { id: 'GAP-H1', to: 'DONE' } }, ['data.to', '"DONE"', 'WONT_FIX'], 'data.to'],
    [{ type: 'gap.openned', data: { id: 'GAP-N1', severity: 'LOW' } }, ['type', '"gap.openned"', 'did you mean gap.opened?'], 'type'],
    [{ type: 'gap.opened', data: { id: 'GAP-N1', severity: 'LOW', titel: 'Typo' } }, ['unknown field "titel"', 'did you mean title?'], 'data.titel'],
    [{ type: 'decision.made', data: { kind: 'surrender' } }, ['data.kind', '"surrender"', 'narrow_scope, accept_complexity'], 'data.kind'],
    [{ type: 'round.closed', data: { round: 'one' } }, ['data.round', '"one"', 'a number'], 'data.round'],
  ])('append %j: refused naming the line, the field and the value (JSON: field, value, valid)', (line, mentions, field) => {
    inRoundOne(box);
    const before = box.logBytes()!;
    expectOneLineError(append(jsonl(line)), 1, mentions);
    const failure = expectJsonFailure(append(jsonl(line), '--json'), 1, mentions);
    expect(failure).toMatchObject({ code: 'invalid_value', field });
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a value with control characters is echoed escaped and cut short, in text and in JSON', () => {
    inRoundOne(box);
    const hostile = `\u001b[2J${'x'.repeat(300)}`;
    const text = expectRefused(box, ['gap', 'open', 'GAP-N1', '--severity', hostile], ['--severity']);
    expect(text.stderr).not.toContain('\u001b');
    expect(text.stderr).toContain('\\u001b[2J');
    expect(text.stderr.length).toBeLessThan(300);
    const failure = expectRefusedAsJson(box, ['gap', 'open', 'GAP-N1', '--severity', hostile, '--json'], 1, ['--severity']);
    expect((failure.value as string).length).toBe(200);
  });
});

describe('usage errors name what was mistyped, with the nearest (exit 2)', () => {
  it.each([
    [['stauts'], ['unknown command "stauts"', 'did you mean status?']],
    [['wacth'], ['unknown command "wacth"', 'did you mean watch?']],
    [
      ['gap', 'mvoe', 'GAP-H1', 'OPEN'],
      ['unknown gap command "mvoe"', 'did you mean move?'],
    ],
    [
      ['round', 'sart'],
      ['unknown round command "sart"', 'did you mean start?'],
    ],
    [
      ['gap', 'open', 'GAP-N1', '--sevrity', 'LOW'],
      ['unknown option --sevrity', 'did you mean --severity?'],
    ],
    [
      ['state', '--jsno'],
      ['unknown option --jsno', 'did you mean --json?'],
    ],
  ])('`gapflow %s`', (argv, mentions) => {
    atBaseline(box);
    expectRefused(box, argv, mentions, 2);
    expect(expectRefusedAsJson(box, [...argv, '--json'], 2, mentions).code).toBe('usage');
  });
});

/*
 * The exit codes, across commands: 0 done, 1 a refused or invalid value
 * (also a damaged log), 2 usage (unknown command, verb or option, a
 * missing argument). The same code with --json, which prints the failure as
 * one JSON object on stderr instead of a line of text.
 */
describe('exit 1 for a refused or invalid value, 2 for usage, with or without --json', () => {
  const table: [string[], 1 | 2, string | undefined][] = [
    // usage: 2
    [['frobnicate'], 2, undefined],
    [['gap'], 2, undefined],
    [['gap', 'close', 'GAP-H1'], 2, undefined],
    [['gap', 'move', 'GAP-H1'], 2, undefined],
    [['gap', 'open', 'GAP-N1'], 2, undefined],
    [['round'], 2, undefined],
    [['round', 'start', 'now'], 2, undefined],
    [['decide'], 2, undefined],
    [['decide', '--gaps', 'GAP-H1'], 2, undefined],
    [['record'], 2, undefined],
    [['state', '--verbose'], 2, undefined],
    [['status', 'everything'], 2, undefined],
    [['next', '--now'], 2, undefined],
    [['append', '--files', 'x'], 2, undefined],
    [['viz', '--format'], 2, undefined],
    // invalid values: 1
    [['gap', 'open', 'GAP-N1', '--severity', 'URGENT'], 1, undefined],
    [['gap', 'move', 'GAP-H1', 'DONE'], 1, undefined],
    [['gap', 'severity', 'GAP-H1', 'BIG'], 1, undefined],
    [['gap', 'open', 'bad id', '--severity', 'LOW'], 1, undefined],
    [['decide', 'surrender'], 1, undefined],
    [['record', 'nope'], 1, undefined],
    [['state', '--format', 'yaml'], 1, undefined],
    [['viz', '--format', 'svg'], 1, undefined],
    [['init', '--max-rounds', 'ten'], 1, undefined],
    [['round', 'start', '--expect-seq', 'x'], 1, undefined],
    [['append'], 1, '{"type":"gap.opened","data":{"id":"GAP-N1","severity":"URGENT"}}\n'],
    [['append'], 1, 'not json\n'],
    // refused by the rules: 1
    [['round', 'close'], 1, undefined],
    [['gap', 'move', 'GAP-H1', 'OPEN'], 1, undefined],
    [['gap', 'move', 'GAP-NOPE', 'RESOLVED'], 1, undefined],
    [['decide', 'narrow-scope', '--gaps', 'GAP-H1'], 1, undefined],
    [['init'], 1, undefined],
    [['append'], 1, '{"type":"round.closed","data":{}}\n'],
  ];

  it.each(table)('`gapflow %s` exits %i', (argv, code, stdin) => {
    atBaseline(box);
    const call = (words: string[]) => runCli([...words, '--dir', box.dir], { cwd: box.root, ...(stdin === undefined ? {} : { stdin }) });
    const before = box.logBytes()!;
    expectOneLineError(call(argv), code, []);
    const failure = expectJsonFailure(call([...argv, '--json']), code, []);
    expect(failure.message.length).toBeGreaterThan(0);
    expect(Buffer.compare(box.logBytes()!, before), 'events.jsonl changed').toBe(0);
  });

  it('global --json before the command counts too', () => {
    atBaseline(box);
    expectJsonFailure(runCli(['--json', 'frobnicate'], { cwd: box.root }), 2, ['frobnicate']);
    expectJsonFailure(runCli(['--json', '--dir', box.dir, 'gap', 'move', 'GAP-H1', 'DONE'], { cwd: box.root }), 1, ['DONE']);
  });

  it('`record POLICY --json FILE` names its input: a failure there is still text', () => {
    box.ok('init', '--policy', 'questions');
    const result = box.gf('record', 'questions', '--json', 'missing.json');
    expectOneLineError(result, 1, ['missing.json']);
  });

  it('a damaged log under --json: code log_error, exit 1', () => {
    atBaseline(box);
    box.writeLog(`${box.logLines().join('\n')}\n{"v":4,"seq":9`);
    const failure = expectJsonFailure(box.gf('state', '--json'), 1, ['line 4']);
    expect(failure.code).toBe('log_error');
  });
});

describe('rounds numbered by the tool', () => {
  it('round.started and round.closed without data.round are given the next round and the open round', () => {
    atBaseline(box);
    for (let n = 1; n <= 2; n++) {
      const result = append(
        jsonl({ type: 'round.started', data: {} }, { type: 'gap.opened', data: { id: `GAP-R${n}`, severity: 'LOW' } }, { type: 'round.closed', data: {} }),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`round.started ${n}`);
      expect(result.stdout).toContain(`round.closed ${n}`);
    }
    const rounds = box
      .logLines()
      .map((l) => JSON.parse(l) as { type: string; data: { round?: number } })
      .filter((e) => e.type.startsWith('round.'));
    expect(rounds.map((e) => `${e.type} ${e.data.round}`)).toEqual(['round.started 1', 'round.closed 1', 'round.started 2', 'round.closed 2']);
  });

  it('a number given is still checked', () => {
    atBaseline(box);
    expectOneLineError(append(jsonl({ type: 'round.started', data: { round: 2 } })), 1, ['the next round is 1, not 2']);
  });
});

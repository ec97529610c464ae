import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atBaseline, expectOneLineError, expectRefused, resealed, Sandbox } from './helpers.js';

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

describe('gapflow verify', () => {
  it('a good log: exit 0, the event count and the last checksum', () => {
    atBaseline(box);
    const result = box.ok('verify');
    const lastSum = /"sum":"([0-9a-f]{16})"\}$/.exec(box.logLines().at(-1)!)![1];
    expect(result.stdout).toContain('3 events, seq 1 to 3, checksum chain intact');
    expect(result.stdout).toContain(lastSum);
  });

  it('an edited line: exit 1, one line naming the line and why, and the log untouched', () => {
    atBaseline(box);
    const lines = box.logLines();
    box.writeLog(`${[lines[0], lines[1]!.replace('Parser', 'Lexer'), lines[2]].join('\n')}\n`);
    expectRefused(box, ['verify'], [/events\.jsonl line 2: checksum mismatch/]);
  });

  it('--json reports the line, the reason and whether repair can mend it', () => {
    atBaseline(box);
    box.writeLog(`${box.logLines().join('\n')}\n{"v":2,"seq":4`);
    const result = box.gf('verify', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, events: 3, lastSeq: 3, line: 4, repairable: true });
  });

  it('a whole log that breaks a rule (sealed, but a move the gap cannot make) opens as recorded; verify lists it as an audit finding', () => {
    atBaseline(box);
    box.ok('gap', 'move', 'GAP-H1', 'IN_PROGRESS');
    // Hand edit of the last line, sealed again so only the rule is wrong: the chain cannot tell, the audit can.
    box.writeLog(resealed(box.logLines().map((line, i) => (i === 3 ? line.replace('IN_PROGRESS', 'ACCEPTED') : line))));
    const result = box.ok('verify');
    expect(result.stdout).toMatch(/^OK: .*4 events/);
    expect(result.stdout).toContain("Audit under today's rules: 1 finding (the history stands as recorded):\n");
    expect(result.stdout).toMatch(/ {2}line 4: gap\.moved: today's rules refuse it: gap\.moved GAP-H1: gap GAP-H1 is OPEN; moves allowed from OPEN: /);
    const strict = box.gf('verify', '--strict');
    expect([strict.code, strict.stderr]).toEqual([3, '']);
    const json = JSON.parse(box.gf('verify', '--json').stdout) as { ok: boolean; line: number | null; findings: { line: number; kind: string }[] };
    expect(json).toMatchObject({ ok: true, line: null, findings: [{ line: 4, type: 'gap.moved', kind: 'refused' }] });
    expect(box.ok('state', '--json').stdout).toContain('"ACCEPTED"');
    expect(box.ok('repair').stdout).toMatch(/^Nothing to repair/);
  });
});

describe('gapflow repair', () => {
  it('cuts a torn last line, keeps a copy, and the log reads again', () => {
    atBaseline(box);
    const good = readFileSync(box.logPath, 'utf8');
    const torn = '{"v":2,"seq":4,"id":"x"';
    box.writeLog(`${good}${torn}`);
    expectRefused(box, ['state'], [/line 4: .*torn last line.*gapflow repair/]);
    expectRefused(box, ['gap', 'open', 'GAP-N', '--severity', 'LOW'], [/line 4/]);
    const result = box.ok('repair');
    expect(result.stdout).toMatch(new RegExp(`^Cut line 4 \\(${torn.length} bytes: the line has no newline at its end`));
    expect(readFileSync(box.logPath, 'utf8')).toBe(good);
    const backups = readdirSync(box.dir).filter((name) => name.startsWith('events.jsonl.torn-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(`${box.dir}/${backups[0]}`, 'utf8')).toBe('{"v":2,"seq":4,"id":"x"');
    box.ok('verify');
    box.ok('gap', 'open', 'GAP-N', '--severity', 'LOW');
  });

  it('a good log: nothing to repair, exit 0, nothing written', () => {
    atBaseline(box);
    const before = box.logBytes();
    expect(box.ok('repair').stdout).toMatch(/^Nothing to repair/);
    expect(box.logBytes()!.equals(before!)).toBe(true);
  });

  it('damage before the last line is refused untouched', () => {
    atBaseline(box);
    const lines = box.logLines();
    box.writeLog(`${lines[0]}\nnot json\n${lines[2]}\n`);
    const before = readdirSync(box.dir);
    expectRefused(box, ['repair'], [/line 2: not a JSON object; repair cuts only a torn last line/]);
    // Nothing beside the log either: no copy set aside, no checkpoint written.
    expect(readdirSync(box.dir)).toEqual(before);
    expect(before).toContain('events.jsonl');
  });
});

describe('--expect-seq and --event-id on writing commands', () => {
  it('--expect-seq refuses a log that moved on, naming both seqs', () => {
    atBaseline(box);
    expectRefused(box, ['gap', 'open', 'GAP-N', '--severity', 'LOW', '--expect-seq', '2'], [/end at seq 2, but it ends at seq 3/]);
    box.ok('gap', 'open', 'GAP-N', '--severity', 'LOW', '--expect-seq', '3');
    expectRefused(box, ['round', 'start', '--expect-seq', '3'], [/ends at seq 4/]);
    expectRefused(box, ['decide', 'pause', '--expect-seq', '1'], [/ends at seq 4/]);
    expectRefused(box, ['gap', 'move', 'GAP-N', 'RESOLVED', '--expect-seq', '0'], [/ends at seq 4/]);
    expectRefused(box, ['gap', 'severity', 'GAP-N', 'HIGH', '--expect-seq', '9'], [/ends at seq 4/]);
  });

  it('--expect-seq takes a whole number; anything else is one line, even a newline', () => {
    atBaseline(box);
    expectRefused(box, ['round', 'start', '--expect-seq', 'three'], [/--expect-seq takes a whole number, not "three"/]);
    expectRefused(box, ['round', 'start', '--expect-seq', '1\n2'], [/not "1\\n2"/]);
  });

  it('init --expect-seq 0 creates; a second init with the same --event-id is a no-op', () => {
    box.ok('init', '--expect-seq', '0', '--event-id', 'init-1');
    const before = box.logBytes();
    expect(box.ok('init', '--event-id', 'init-1').stdout).toMatch(/^Already recorded: event init-1 is seq 1 \(session\.started\); nothing was appended/);
    expect(box.logBytes()!.equals(before!)).toBe(true);
    expectRefused(box, ['init', '--event-id', 'init-2'], [/already/]);
  });

  it('a retried call with the same --event-id appends nothing and says so; --json marks it a duplicate', () => {
    atBaseline(box);
    box.ok('round', 'start');
    box.ok('gap', 'move', 'GAP-M1', 'RESOLVED', '--event-id', 'stop-hook-41');
    const before = box.logBytes();
    expect(box.ok('gap', 'move', 'GAP-M1', 'RESOLVED', '--event-id', 'stop-hook-41').stdout).toMatch(/Already recorded: event stop-hook-41 is seq 5/);
    const json = JSON.parse(box.ok('gap', 'move', 'GAP-M1', 'RESOLVED', '--event-id', 'stop-hook-41', '--json').stdout) as {
      duplicate: boolean;
      events: { seq: number }[];
    };
    expect(json).toMatchObject({ duplicate: true, events: [{ seq: 5 }] });
    expect(box.logBytes()!.equals(before!)).toBe(true);
  });

  it('an --event-id with characters outside letters, digits and . _ - : is refused', () => {
    atBaseline(box);
    expectRefused(box, ['round', 'start', '--event-id', '<b>x</b>'], [/event id: an event id is letters, digits/]);
  });

  it('`constructor` as a gap id and `__proto__` as an event id are stored and shown like any other', () => {
    atBaseline(box);
    box.ok('gap', 'open', 'constructor', '--severity', 'LOW', '--title', '<b>x</b> | *y*', '--event-id', '__proto__');
    expect(box.ok('gap', 'open', 'constructor', '--severity', 'LOW', '--event-id', '__proto__').stdout).toMatch(/Already recorded/);
    expect(box.stateJson().gaps.map((g) => g.id)).toContain('constructor');
    const status = box.ok('status').stdout;
    const row = status.split('\n').find((line) => line.includes('constructor'))!;
    expect(row).not.toContain('<b>');
    expect(row.split(/(?<!\\)\|/).length).toBe(
      status
        .split('\n')
        .find((line) => line.includes('GAP-H1'))!
        .split(/(?<!\\)\|/).length,
    );
  });

  it('a usage error naming a hostile word stays one line', () => {
    expectOneLineError(box.gf('bad\ncommand'), 2, [/unknown command "bad\\ncommand"/]);
  });
});

describe('gapflow repair: the edges a review found', () => {
  it('with no session: one line, and no lock file left behind', () => {
    expectOneLineError(box.gf('repair'), 1, ['no session']);
    expect(() => readdirSync(box.dir)).toThrow();
  });

  it('a log whose only line is torn: repair removes it (keeping the copy), so init can start again', () => {
    box.ok('init');
    box.writeLog('{"v":2,"seq":1,"ga');
    box.ok('repair');
    expect(readdirSync(box.dir).filter((name) => name === 'events.jsonl')).toEqual([]);
    expect(readdirSync(box.dir).some((name) => name.startsWith('events.jsonl.torn-'))).toBe(true);
    box.ok('init');
  });
});

describe('hostile input files', () => {
  it('invalid UTF-8 in an append batch is refused in one line, the log unchanged', () => {
    atBaseline(box);
    const before = box.logBytes()!;
    const file = `${box.root}/batch.jsonl`;
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"type":"gap.opened","data":{"id":"G-X","severity":"LOW","title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]),
    );
    expectOneLineError(box.gf('append', '--file', file), 1, ['not valid UTF-8']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a "__proto__" key in a batch line is refused, never silently dropped', () => {
    box.ok('init', '--policy', 'quality');
    const before = box.logBytes()!;
    const file = `${box.root}/batch.jsonl`;
    writeFileSync(file, '{"type":"metrics.recorded","data":{"policy":"quality","metrics":{"score":50,"__proto__":{"score":99}}}}\n');
    expectOneLineError(box.gf('append', '--file', file), 1, ['__proto__']);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });
});

describe('a policy round whose automatic close was torn off', () => {
  it('repair keeps the metrics; a retry appends nothing; next says to close the round, and round close does', () => {
    box.ok('init', '--policy', 'questions');
    box.ok('record', 'questions', '--open', '5', '--high', '1', '--medium', '1', '--event-id', 'q1');
    const lines = box.logLines();
    expect(lines.at(-1)).toContain('"round.closed"');
    box.writeLog(`${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 30)}`);
    box.ok('repair');
    expect(box.ok('record', 'questions', '--open', '5', '--high', '1', '--medium', '1', '--event-id', 'q1').stdout).toContain('Already recorded');
    const next = JSON.parse(box.ok('next', '--json').stdout) as { action: string; reason: string };
    expect(next.reason).toContain('close round 1');
    box.ok('round', 'close');
    expect(JSON.parse(box.ok('next', '--json').stdout).reason).toContain('record questions for round 2');
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as gapflow from '../../src/index.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the public API (docs/api.md)', () => {
  it('the documented example is examples/library.ts word for word, and prints what the page says it prints', { timeout: 30_000 }, () => {
    const doc = read('docs/api.md');
    const example = read('examples/library.ts');
    expect(doc).toContain(`\`\`\`ts\n${example}\`\`\``);
    // `npm test` builds first, so this is the example as a user runs it.
    const out = execFileSync(process.execPath, [join(root, 'dist', 'examples', 'library.js')], { encoding: 'utf8' });
    const printed = /It prints:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(out).toBe(printed);
  });

  it('its figures follow the rules: a resolved HIGH is net +4 (progress), an opened MEDIUM net -2 (flat, 1 of N = 2)', { timeout: 30_000 }, () => {
    const out = execFileSync(process.execPath, [join(root, 'dist', 'examples', 'library.js')], { encoding: 'utf8' });
    const { HIGH, MEDIUM } = gapflow.SEVERITY_WEIGHT;
    expect(HIGH).toBeGreaterThan(0);
    expect(out).toContain('"verdict":"progress"');
    expect(out).toContain(`CONVERGING -> FLAT: weighted_net = ${-MEDIUM}, flat_count = 1 (1/2 toward stall)`);
  });

  it('every value the package root exports is documented on the page, and the internals are not exported', () => {
    const doc = read('docs/api.md');
    const namespaces = ['render', 'policies', 'machine', 'events'] as const;
    for (const name of Object.keys(gapflow)) {
      if ((namespaces as readonly string[]).includes(name)) continue;
      expect(doc, `${name} is exported but not documented`).toContain(`\`${name}`);
    }
    for (const ns of namespaces) {
      expect(typeof gapflow[ns]).toBe('object');
      for (const name of Object.keys(gapflow[ns])) expect(doc, `${ns}.${name} is exported but not documented`).toContain(`\`${name}`);
    }
    for (const internal of [
      'fold',
      'settle',
      'sealLine',
      'chainSum',
      'parseLines',
      'formatLines',
      'machineEventOf',
      'evolveMany',
      'foresee',
      'auditHistory',
      'judgeRoundClose',
      'stepMachine',
      'withLock',
    ]) {
      expect(Object.keys(gapflow), internal).not.toContain(internal);
    }
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gapsPolicy, metricPolicies, POLICY_NAMES } from '../../src/policies/index.js';
import { HELP } from '../../src/cli/index.js';

/*
 * The CLI is a thin shell over the registry: every policy declares what the
 * CLI needs from it (record flags, a command flag, reports, state formats),
 * and the CLI loops over the registry. Nothing in src/cli may name one.
 */

const cliDir = join(import.meta.dirname, '..', '..', 'src', 'cli');
const sources = readdirSync(cliDir)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(cliDir, file), 'utf8') }));

describe('src/cli names no policy', () => {
  it('reads every file of src/cli', () => {
    expect(sources.map((s) => s.file)).toContain('table.ts');
  });

  it('imports no policy folder by name, only the policies door', () => {
    for (const { file, text } of sources) {
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((path) => /policies\/(?!index\.js$)/.test(path)),
        file,
      ).toEqual([]);
    }
  });

  it('holds no metric policy name: not as a word, a string, or the start of an identifier (qualityReport)', () => {
    for (const policy of metricPolicies()) {
      const named = new RegExp(`\\b${policy.name}(?![a-z-])`, 'i');
      for (const { file, text } of sources) expect(text.match(named)?.[0], `${file} names ${policy.name}`).toBeUndefined();
    }
  });

  it('holds no string that is the gap policy name', () => {
    for (const { file, text } of sources) expect(text.match(new RegExp(`['"\`]${gapsPolicy.name}['"\`]`))?.[0], file).toBeUndefined();
  });

  it("holds none of a policy's own flags or formats: its command flag and its state formats come from the registry", () => {
    for (const policy of metricPolicies()) {
      const own = [
        ...(policy.recordCommand ? [`--${policy.recordCommand.flag}`, `--${policy.recordCommand.timeoutFlag}`] : []),
        ...Object.keys(policy.stateFormats ?? {}),
      ];
      for (const word of own) {
        for (const { file, text } of sources) expect(text.includes(word), `${file} holds ${word} (${policy.name})`).toBe(false);
      }
    }
  });
});

describe('--help comes from the registry, so it stays true', () => {
  it('lists every policy with its summary, its record flags, its command flag, its init settings and its state formats', () => {
    for (const policy of metricPolicies()) {
      expect(HELP).toContain(`record ${policy.name}`);
      // The summary may be wrapped: compare it word by word.
      expect(HELP.replace(/\s+/g, ' ')).toContain(policy.summary);
      for (const flag of Object.keys(policy.recordFlags)) expect(HELP).toContain(`--${flag}`);
      if (policy.recordCommand) expect(HELP).toContain(`--${policy.recordCommand.flag}`);
      if (Object.keys(policy.settingFlags).length > 0) expect(HELP).toContain(`--${policy.name}-SETTING`);
      for (const setting of Object.keys(policy.settingFlags)) expect(HELP).toMatch(new RegExp(`\\b${setting}\\b`));
      for (const format of Object.keys(policy.stateFormats ?? {})) expect(HELP).toContain(`--format ${format}`);
    }
    expect(HELP).toContain(`--policy ${POLICY_NAMES.join('|')}`);
    expect(POLICY_NAMES).toEqual(expect.arrayContaining(metricPolicies().map((p) => p.name)));
  });
});

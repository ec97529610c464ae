import { Refusal, type BacktestSettings, type Variant } from '../core/index.js';
import { metricPolicies, policyNamed } from '../policies/index.js';
import { formatIssue, oneOf, parseRequest, PRESET_WORDS, shownValue } from '../../events/index.js';
import { wordOf } from './args.js';
import { settingValue } from './policy-commands.js';

/*
 * The words `backtest --set NAME=V` and `--grid NAME=A..B` take: the
 * settings `init` takes, by the names of its flags, each read into the
 * session settings it sets. Every value is judged by the same schema a
 * session's start is, before any log is read.
 */

const WHOLE_NUMBER = /^-?\d+$/;
const SWITCH: Readonly<Record<string, boolean>> = { on: true, off: false, true: true, false: false, yes: true, no: false };

type Reader = (raw: string, where: string) => BacktestSettings;

const THRESHOLDS = { 'stall-threshold': 'stallThreshold', 'divergence-threshold': 'divergenceThreshold', 'max-rounds': 'maxRounds' } as const;

/** Every setting by name: the thresholds, the critical override, the preset, and each metric policy's `<policy>-<setting>`. */
function readers(): Map<string, { reader: Reader; whole: boolean }> {
  const map = new Map<string, { reader: Reader; whole: boolean }>();
  for (const [name, key] of Object.entries(THRESHOLDS)) map.set(name, { reader: (raw, where) => ({ [key]: wholeNumber(raw, where) }), whole: true });
  map.set('critical-override', { reader: (raw, where) => ({ criticalOverride: switchValue(raw, where) }), whole: false });
  map.set('preset', { reader: (raw, where) => ({ preset: wordOf(where, raw, PRESET_WORDS) }), whole: false });
  for (const policy of metricPolicies()) {
    for (const [flag, key] of Object.entries(policy.settingFlags)) {
      map.set(`${policy.name}-${flag}`, { reader: (raw) => ({ policySettings: { [policy.name]: { [key]: settingValue(raw) } } }), whole: true });
    }
  }
  return map;
}

/** The names `--set` and `--grid` take. */
export function settingNames(): string[] {
  return [...readers().keys()];
}

/** `--set NAME=V`: one setting for every run. */
export function setVariant(text: string): Variant {
  const { name, raw, setting } = split('--set', text, 'NAME=VALUE, e.g. stall-threshold=3');
  const where = `--set ${name}=${raw}`;
  return judged({ label: `${name}=${raw.trim()}`, settings: setting.reader(raw, where) }, where);
}

/** `--grid NAME=A..B`: one run per whole value from A to B. */
export function gridVariants(text: string): Variant[] {
  const { name, raw, setting } = split('--grid', text, 'NAME=A..B, e.g. stall-threshold=2..4');
  const where = `--grid ${name}=${raw}`;
  if (!setting.whole) throw refusal(`${where}: ${name} is not a number to step through; give each value with --set`, '--grid', text);
  const range = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/.exec(raw);
  if (!range) throw refusal(`${where}: a grid is a range of whole numbers A..B, e.g. ${name}=2..4`, '--grid', text);
  const [low, high] = [Number(range[1]), Number(range[2])];
  if (low > high) throw refusal(`${where}: the range runs from low to high (${low} > ${high}); write ${name}=${high}..${low}`, '--grid', text);
  if (high - low >= MAX_GRID) throw refusal(`${where}: ${high - low + 1} values; a grid steps through at most ${MAX_GRID}`, '--grid', text);
  return Array.from({ length: high - low + 1 }, (_, i) => {
    const value = String(low + i);
    return judged({ label: `${name}=${value}`, settings: setting.reader(value, where) }, `${where} (${value})`);
  });
}

/** The most values one grid, and all grids together, may make: a backtest replays every session once per value. */
export const MAX_GRID = 1000;

/** The setting names a variant was made from, so one named twice can be refused. */
export function namesOf(texts: readonly string[]): string[] {
  return texts.map((text) => text.split('=')[0]!.trim());
}

function split(flag: string, text: string, form: string) {
  const at = text.indexOf('=');
  if (at <= 0) throw refusal(`${flag} takes ${form}, not ${shownValue(text)}`, flag, text);
  const name = text.slice(0, at).trim();
  const raw = text.slice(at + 1);
  const setting = readers().get(name);
  if (!setting) {
    const { text: words, suggestion } = oneOf(name, settingNames());
    throw new Refusal(`${flag} ${text}: ${shownValue(name)} is no setting (${words})`, undefined, {
      field: flag,
      value: name,
      valid: settingNames(),
      suggestion,
    });
  }
  return { name, raw, setting };
}

/** Why `settings` could start no session, in the schema's words (`0 is too small: at least 1`); null when they could. */
export function backtestSettingsProblem(settings: BacktestSettings): string | null {
  const { policySettings, ...thresholds } = settings;
  const started = parseRequest({ type: 'session.started', data: thresholds });
  if (started.message !== undefined) return started.message.replace(/^session\.started: data\.\w+: /, '');
  for (const [name, values] of Object.entries(policySettings ?? {})) {
    const policy = policyNamed(name);
    if (!policy) return `no policy is named ${name}`;
    const parsed = policy.settings.safeParse(values, { reportInput: true });
    if (!parsed.success) return formatIssue(parsed.error);
  }
  return null;
}

function judged(variant: Variant, where: string): Variant {
  const problem = backtestSettingsProblem(variant.settings);
  if (problem !== null) throw refusal(`${where}: ${problem}`, where.split(' ')[0]!, where);
  return variant;
}

function wholeNumber(raw: string, where: string): number {
  if (!WHOLE_NUMBER.test(raw.trim())) throw refusal(`${where}: takes a whole number, not ${shownValue(raw)}`, where.split(' ')[0]!, raw);
  return Number(raw);
}

function switchValue(raw: string, where: string): boolean {
  const value = SWITCH[raw.trim().toLowerCase()];
  if (value === undefined) throw refusal(`${where}: takes on or off, not ${shownValue(raw)}`, where.split(' ')[0]!, raw);
  return value;
}

function refusal(message: string, field: string, value: string): Refusal {
  return new Refusal(message, undefined, { field, value, valid: null, suggestion: null });
}

import { SNAPSHOT_FINDINGS_MAX } from '../../events/index.js';
import { badInput, type Finding, findingId, type ReadOptions, type Snapshot, severityOf, sourceNameProblem, titleOf, type ToolSeverity } from './finding.js';
import { parseJsonText, pointerOf, shown } from './json.js';

const { fileURLToPath } = process.getBuiltinModule('node:url');
const { isAbsolute, relative, sep } = process.getBuiltinModule('node:path');

/*
 * A SARIF 2.1.0 log as one source's whole snapshot of findings.
 *
 * What is a finding: a result whose `kind` (default "fail") is "fail",
 * that no suppression holds (an accepted `suppressions` entry, with none
 * under review), and whose level is not "none". The level is the result's,
 * else its rule's `defaultConfiguration.level`, else "warning" (SARIF
 * §3.27.10; `ruleConfigurationOverrides` are not read). The rule is found
 * by `rule.index`, `ruleIndex`, or its id (`rule.id`, `ruleId`, then the id
 * cut at each last `/`: §3.27.5's hierarchical ids) in `tool.driver.rules`,
 * or in the `tool.extensions` component `rule.toolComponent` names.
 *
 * Severity: the rule's `properties["security-severity"]` (the result's when
 * the rule has none), a number or a decimal string, by GitHub's bands: 9.0
 * to 10 critical (GitHub says "over 9.0" and leaves 9.0 itself unsaid; 9.0
 * is taken as critical), 7.0 up to 9.0 high, 4.0 up to 7.0 medium, 0.1 up to
 * 4.0 low. A score of 0, outside 0.1 to 10 or not a number leaves it to the
 * level (error, warning, note). Then the caller's overrides (`severityOf`).
 *
 * Identity, what makes a finding the same one every run, whatever line it
 * moved to, is the JSON text (JSON.stringify) of an array:
 *   - `[rule, "fingerprints", k1, v1, k2, v2, ...]` when the result has
 *     `fingerprints` (every key, sorted by Array.prototype.sort);
 *   - else `[rule, "partialFingerprints", location, k1, v1, ...]` when it has
 *     `partialFingerprints`: a partial one (CodeQL's `primaryLocationLineHash`
 *     is a hash of the line's text) says nothing of the file or the rule, so
 *     both join it;
 *   - else `[rule, "location", location, message]` (ESLint writes no
 *     fingerprints): the rule, the file, the message text.
 * `rule` is the rule's id ('' when the result names none). `location` is the
 * first location's artifact URI: an absolute `file:` URI inside
 * `options.root` as the path relative to it (`src/a.js`, `/`-separated,
 * decoded); a relative URI as written, after its `uriBaseId` and a `/` when
 * it has one (`%SRCROOT%/src/a.js`); anything else as written; '' when the
 * result has no location. Never the line: the line is in the title only.
 * The gap id is findingId(source, the rule's id or "result", identity).
 * When identities repeat within one snapshot (CodeQL repeats its partial
 * fingerprints for two hits on one line; ESLint repeats a message such as
 * eqeqeq's in one file), the n-th repeat (n = 1, 2, ... in the log's order)
 * has n pushed on its array, so each finding has its own id. Repeats are
 * counted by that first id: equal identities give equal ids, and two
 * unequal ones whose ids collide (a 48-bit hash) are told apart the same
 * way. Which of two equal findings was fixed cannot be told: the one left
 * takes the first id.
 *
 * Not a whole snapshot, refused: a log with no runs (`runs` empty or null),
 * a run whose `results` is absent or null (the tool did not start its
 * analysis, §3.14.23), and a run with an invocation whose
 * `executionSuccessful` is false (ESLint's parse error): resolving every gap
 * of a file that merely failed to parse would be wrong.
 */

type Json = Record<string, unknown>;

/** How many `/`-components a rule id is cut back by to find its rule (§3.27.5), and the longest id that is cut at all. */
const HIERARCHY_MAX = 8;
const HIERARCHICAL_ID_MAX = 512;

/** The property names this reader reads: SARIF's own, none of them a name Object.prototype has. */
type SarifKey =
  | 'arguments'
  | 'artifactLocation'
  | 'artifacts'
  | 'defaultConfiguration'
  | 'driver'
  | 'executionSuccessful'
  | 'extensions'
  | 'fingerprints'
  | 'globalMessageStrings'
  | 'guid'
  | 'id'
  | 'index'
  | 'invocations'
  | 'kind'
  | 'level'
  | 'location'
  | 'locations'
  | 'message'
  | 'messageStrings'
  | 'name'
  | 'partialFingerprints'
  | 'physicalLocation'
  | 'properties'
  | 'region'
  | 'results'
  | 'rule'
  | 'ruleId'
  | 'ruleIndex'
  | 'rules'
  | 'runs'
  | 'security-severity'
  | 'shortDescription'
  | 'startLine'
  | 'status'
  | 'suppressions'
  | 'text'
  | 'tool'
  | 'toolComponent'
  | 'toolConfigurationNotifications'
  | 'toolExecutionNotifications'
  | 'uri'
  | 'uriBaseId'
  | 'version';

/**
 * The value of a property SARIF names (`message`, `ruleId`): read directly,
 * as none of those names is one Object.prototype lends, and JSON.parse's
 * objects inherit nothing else (parseJsonText refused `__proto__`).
 */
function own(object: Json, key: SarifKey): unknown {
  return object[key];
}

/** The value of a key the log itself chose (a message string's id), never one a prototype lends (`constructor`, `toString`). */
function ownKey(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The values SARIF gives `result.kind`, `level` and `suppression.status` (§3.27.9, §3.27.10, §3.35.3). */
const KINDS = ['notApplicable', 'pass', 'fail', 'review', 'open', 'informational'];
const LEVELS = ['none', 'note', 'warning', 'error'];
const SUPPRESSION_STATES = ['accepted', 'underReview', 'rejected'];

/** A rule with the pointer it is at, so a refusal about it names where. */
interface Rule {
  rule: Json;
  at: string;
}

/** A tool component (the driver, an extension) whose rules results name. */
interface Component {
  at: string;
  value: Json;
  byId?: Map<string, Rule>;
}

/** Where a result is, as a gap's identity and title name it. */
interface Place {
  key: string;
  shown: string;
}

/** A security-severity score as a tool word by GitHub's bands, or null when it is not a score in 0.1 to 10. */
function securityBand(value: unknown): ToolSeverity | null {
  let score: number;
  if (typeof value === 'number') score = value;
  else if (typeof value === 'string' && value.length <= 24 && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) score = Number(value);
  else return null;
  if (!(score >= 0.1 && score <= 10)) return null;
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  return score >= 4 ? 'medium' : 'low';
}

/** A SARIF message string with its `{n}` placeholders filled and `{{`, `}}` made braces (§3.11.5). */
function filled(text: string, args: readonly string[]): string {
  return text.replace(/\{\{|\}\}|\{(\d{1,9})\}/g, (match, index: string | undefined) => {
    if (index === undefined) return match[0]!;
    return args[Number(index)] ?? match;
  });
}

/**
 * Reads one log, every refusal naming `file` and the pointer. A value is
 * read from its holder by key, and the pointer (`${at}/${key}`) is made only
 * when it is refused: 50,000 results must not make a million strings.
 */
class SarifReader {
  readonly findings: Finding[] = [];
  private readonly seen = new Map<string, number>();
  private readonly places = new Map<string, Place>();
  private readonly byArtifact: ({ uri: string; base: string | undefined; place: Place } | undefined)[] = [];

  constructor(
    private readonly options: ReadOptions,
    private readonly source: string,
  ) {}

  fail(at: string, why: string): never {
    badInput(this.options.file, at, why);
  }

  /** `holder[key]`, an object; undefined when absent or null. */
  object(holder: Json, key: SarifKey, at: string): Json | undefined {
    const value = own(holder, key);
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) this.fail(`${at}/${key}`, `is ${shown(value)}, not an object`);
    return value;
  }

  /** `holder[key]`, an object that must be there. */
  needed(holder: Json, key: SarifKey, at: string): Json {
    const value = this.object(holder, key, at);
    if (value === undefined) this.fail(`${at}/${key}`, `missing: ${key} is required here`);
    return value;
  }

  /** `list[index]`, an object. */
  item(list: readonly unknown[], index: number, at: string): Json {
    const value = list[index];
    if (!isObject(value)) this.fail(`${at}/${index}`, `is ${shown(value)}, not an object`);
    return value;
  }

  /** `holder[key]`, an array; undefined when absent or null. */
  array(holder: Json, key: SarifKey, at: string): unknown[] | undefined {
    const value = own(holder, key);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) this.fail(`${at}/${key}`, `is ${shown(value)}, not an array`);
    return value;
  }

  /** `holder[key]`, a string; undefined when absent or null. */
  string(holder: Json, key: SarifKey, at: string): string | undefined {
    const value = own(holder, key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') this.fail(`${at}/${key}`, `is ${shown(value)}, not a string`);
    return value;
  }

  /** `holder[key]`, an index into an array: a whole number from 0; -1 (SARIF's default) when absent. */
  index(holder: Json, key: SarifKey, at: string): number {
    const value = own(holder, key);
    if (value === undefined || value === null) return -1;
    if (!Number.isSafeInteger(value) || (value as number) < -1) this.fail(`${at}/${key}`, `is ${shown(value)}, not an index (a whole number from 0, or -1)`);
    return value as number;
  }

  /** `holder[key]`, one of `words`; undefined when absent. */
  word(holder: Json, key: SarifKey, words: readonly string[], at: string): string | undefined {
    const word = this.string(holder, key, at);
    if (word !== undefined && !words.includes(word)) this.fail(`${at}/${key}`, `is ${shown(word)}, not one of ${words.join(', ')}`);
    return word;
  }

  /** Refuses a run that is not a whole snapshot: an invocation that failed, or its results null or absent. */
  whole(run: Json, at: string): unknown[] {
    const invocations = this.array(run, 'invocations', at) ?? [];
    for (let m = 0; m < invocations.length; m++) {
      const invocation = this.item(invocations, m, `${at}/invocations`);
      if (own(invocation, 'executionSuccessful') !== false) continue;
      this.fail(`${at}/invocations/${m}`, `the tool's run failed${this.failure(invocation, `${at}/invocations/${m}`)}; its findings are not a whole snapshot`);
    }
    const results = this.array(run, 'results', at);
    if (results === undefined) {
      const missing = own(run, 'results') === null ? 'null' : 'missing';
      this.fail(`${at}/results`, `is ${missing}: the tool did not start its analysis, so the run is not a whole snapshot`);
    }
    return results;
  }

  /** `: <the first error-level notification's text>` of a failed invocation, or a note that it has none. */
  private failure(invocation: Json, at: string): string {
    for (const key of ['toolConfigurationNotifications', 'toolExecutionNotifications'] as const) {
      const list = own(invocation, key);
      if (!Array.isArray(list)) continue;
      for (let k = 0; k < list.length; k++) {
        const notification = list[k];
        if (!isObject(notification) || own(notification, 'level') !== 'error') continue;
        const message = this.object(notification, 'message', `${at}/${key}/${k}`);
        const text = message === undefined ? undefined : this.string(message, 'text', `${at}/${key}/${k}/message`);
        if (text !== undefined) return `: ${titleOf(text).slice(0, 200)}`;
      }
    }
    return ' (executionSuccessful is false)';
  }

  /** The tool component a result's rule reference names: the driver unless `toolComponent` names an extension. */
  component(tool: Json, toolAt: string, driver: Component, reference: Json | undefined, at: string): Component {
    const ref = reference === undefined ? undefined : this.object(reference, 'toolComponent', `${at}/rule`);
    if (ref === undefined) return driver;
    const where = `${at}/rule/toolComponent`;
    const extensions = this.array(tool, 'extensions', toolAt) ?? [];
    const index = this.index(ref, 'index', where);
    const guid = this.string(ref, 'guid', where);
    const name = this.string(ref, 'name', where);
    if (index >= 0) {
      if (index >= extensions.length) this.fail(`${where}/index`, `is ${index}, but the tool has ${extensions.length} extensions`);
      return { at: `${toolAt}/extensions/${index}`, value: this.item(extensions, index, `${toolAt}/extensions`) };
    }
    if (guid === undefined && (name === undefined || name === own(driver.value, 'name'))) return driver;
    for (let k = 0; k < extensions.length; k++) {
      const extension = extensions[k];
      if (isObject(extension) && (guid !== undefined ? own(extension, 'guid') === guid : own(extension, 'name') === name)) {
        return { at: `${toolAt}/extensions/${k}`, value: extension };
      }
    }
    this.fail(where, `names a tool component ${shown(guid ?? name)} the tool does not have`);
  }

  /** The rule `id` names in `component`: the id itself, else the id cut at its last `/`, again and again (§3.27.5). */
  ruleById(component: Component, id: string): Rule | undefined {
    if (component.byId === undefined) {
      const byId = new Map<string, Rule>();
      const rules = own(component.value, 'rules');
      if (Array.isArray(rules)) {
        for (let k = 0; k < rules.length; k++) {
          const rule = rules[k];
          const ruleId = isObject(rule) ? own(rule, 'id') : undefined;
          if (typeof ruleId === 'string' && !byId.has(ruleId)) byId.set(ruleId, { rule: rule as Json, at: `${component.at}/rules/${k}` });
        }
      }
      component.byId = byId;
    }
    // Cut at most HIERARCHY_MAX times, and only a short id: a hostile id of thousands of `/` costs one lookup, not thousands.
    let name = id;
    for (let cuts = 0; ; cuts++) {
      const found = component.byId.get(name);
      if (found !== undefined || !name.includes('/') || cuts === HIERARCHY_MAX || id.length > HIERARCHICAL_ID_MAX) return found;
      name = name.slice(0, name.lastIndexOf('/'));
    }
  }

  /** The rule at `index` of `component`'s rules, refused when there is none. */
  ruleAt(component: Component, index: number, indexAt: string): Rule {
    const rules = this.array(component.value, 'rules', component.at) ?? [];
    if (index >= rules.length) this.fail(indexAt, `is ${index}, but ${component.at}/rules has ${rules.length} rules`);
    return { rule: this.item(rules, index, `${component.at}/rules`), at: `${component.at}/rules/${index}` };
  }

  /**
   * The place of a location, cached by its artifact index when it has one
   * (ESLint and CodeQL write one): comparing a URI with the cached one is
   * cheaper than hashing it into a Map, 50,000 times.
   */
  placeOf(uri: string, base: string | undefined, index: number): Place {
    if (index < 0) return this.place(uri, base);
    const cached = this.byArtifact[index];
    if (cached !== undefined && cached.uri === uri && cached.base === base) return cached.place;
    const place = this.place(uri, base);
    this.byArtifact[index] = { uri, base, place };
    return place;
  }

  /** Where a `file:` URI or a relative one is, as identity and title name it (cached: a file has many results). */
  place(uri: string, base: string | undefined): Place {
    const cacheKey = base === undefined ? uri : `${base}\u0000${uri}`;
    const cached = this.places.get(cacheKey);
    if (cached !== undefined) return cached;
    let place: Place = { key: base === undefined ? uri : `${base}/${uri}`, shown: uri };
    if (/^file:/i.test(uri)) {
      let path: string | null = null;
      try {
        path = fileURLToPath(uri);
      } catch {
        // Not a path on this system (a host, an encoded `/`): kept as written.
      }
      if (path !== null) {
        const { root } = this.options;
        const inside = root === undefined ? null : relative(root, path);
        if (inside !== null && inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) {
          const posix = inside.split(sep).join('/');
          place = { key: posix, shown: posix };
        } else place = { key: uri, shown: path };
      }
    }
    this.places.set(cacheKey, place);
    return place;
  }

  /** The first location of a result: its place and start line, or null when it names no artifact. */
  location(result: Json, run: Json, runAt: string, at: string): { place: Place; line: number | undefined } | null {
    const locations = this.array(result, 'locations', at);
    if (locations === undefined || locations.length === 0) return null;
    const physicalLocation = this.object(this.item(locations, 0, `${at}/locations`), 'physicalLocation', `${at}/locations/0`);
    if (physicalLocation === undefined) return null;
    const physicalAt = `${at}/locations/0/physicalLocation`;
    const artifactLocation = this.object(physicalLocation, 'artifactLocation', physicalAt);
    if (artifactLocation === undefined) return null;
    let uri = this.string(artifactLocation, 'uri', `${physicalAt}/artifactLocation`);
    let base = this.string(artifactLocation, 'uriBaseId', `${physicalAt}/artifactLocation`);
    const index = this.index(artifactLocation, 'index', `${physicalAt}/artifactLocation`);
    if (uri === undefined) {
      if (index === -1) return null;
      const artifacts = this.array(run, 'artifacts', runAt) ?? [];
      if (index >= artifacts.length) this.fail(`${physicalAt}/artifactLocation/index`, `is ${index}, but the run has ${artifacts.length} artifacts`);
      const listed = this.needed(this.item(artifacts, index, `${runAt}/artifacts`), 'location', `${runAt}/artifacts/${index}`);
      uri = this.string(listed, 'uri', `${runAt}/artifacts/${index}/location`);
      base = this.string(listed, 'uriBaseId', `${runAt}/artifacts/${index}/location`);
      if (uri === undefined) return null;
    }
    const region = this.object(physicalLocation, 'region', physicalAt);
    const line = region === undefined ? undefined : own(region, 'startLine');
    if (line !== undefined && line !== null && (!Number.isSafeInteger(line) || (line as number) < 1)) {
      this.fail(`${physicalAt}/region/startLine`, `is ${shown(line)}, not a line number (a whole number from 1)`);
    }
    return { place: this.placeOf(uri, base, index), line: (line ?? undefined) as number | undefined };
  }

  /** The message text: its text, else its id in the rule's (or the tool's) message strings, else the rule's short description, else the rule id. */
  message(result: Json, rule: Rule | undefined, driver: Component, ruleId: string | undefined, at: string): string {
    const message = this.needed(result, 'message', at);
    const messageAt = `${at}/message`;
    const rawArgs = this.array(message, 'arguments', messageAt);
    const args: string[] = [];
    for (let k = 0; rawArgs !== undefined && k < rawArgs.length; k++) {
      const arg = rawArgs[k];
      if (typeof arg !== 'string') this.fail(`${messageAt}/arguments/${k}`, `is ${shown(arg)}, not a string`);
      args.push(arg);
    }
    const text = this.string(message, 'text', messageAt);
    if (text !== undefined) return args.length > 0 ? filled(text, args) : text;
    const id = this.string(message, 'id', messageAt);
    if (id !== undefined) {
      const holders: [Json | undefined, SarifKey][] = [
        [rule?.rule, 'messageStrings'],
        [driver.value, 'globalMessageStrings'],
      ];
      for (const [holder, key] of holders) {
        const strings = holder === undefined ? undefined : own(holder, key);
        const entry = isObject(strings) ? ownKey(strings, id) : undefined;
        const found = isObject(entry) ? own(entry, 'text') : undefined;
        if (typeof found === 'string') return filled(found, args);
      }
    }
    const short = rule === undefined ? undefined : own(rule.rule, 'shortDescription');
    const description = isObject(short) ? own(short, 'text') : undefined;
    if (typeof description === 'string' && description !== '') return description;
    if (ruleId !== undefined) return ruleId;
    this.fail(messageAt, 'has no text, no id the rule has a string for, and the result names no rule');
  }

  /**
   * Whether a suppression holds the result: one that is accepted (its status
   * "accepted", or none: §3.35.3's default), while none is still under review
   * (a suppression under review may yet be rejected, so its finding stands;
   * §3.27.23, §3.35.3).
   */
  suppressed(result: Json, at: string): boolean {
    const suppressions = this.array(result, 'suppressions', at) ?? [];
    let accepted = false;
    for (let k = 0; k < suppressions.length; k++) {
      const suppression = this.item(suppressions, k, `${at}/suppressions`);
      const status = this.word(suppression, 'status', SUPPRESSION_STATES, `${at}/suppressions/${k}`);
      if (status === 'underReview') return false;
      if (status === undefined || status === 'accepted') accepted = true;
    }
    return accepted;
  }

  /** The level of a result (§3.27.10): its own, else its rule's default, else "warning". */
  level(result: Json, rule: Rule | undefined, at: string): string {
    const level = this.word(result, 'level', LEVELS, at);
    if (level !== undefined || rule === undefined) return level ?? 'warning';
    const configuration = this.object(rule.rule, 'defaultConfiguration', rule.at);
    return (configuration === undefined ? undefined : this.word(configuration, 'level', LEVELS, `${rule.at}/defaultConfiguration`)) ?? 'warning';
  }

  /** One result: a finding pushed, or nothing when it is not one (not a failure, suppressed, level none). */
  result(result: Json, tool: Json, toolAt: string, driver: Component, run: Json, runAt: string, at: string): void {
    const kind = this.word(result, 'kind', KINDS, at) ?? 'fail';
    const suppressed = this.suppressed(result, at);
    const reference = this.object(result, 'rule', at);
    const component = this.component(tool, toolAt, driver, reference, at);
    let index = reference === undefined ? -1 : this.index(reference, 'index', `${at}/rule`);
    let indexAt = `${at}/rule/index`;
    if (index === -1) {
      index = this.index(result, 'ruleIndex', at);
      indexAt = `${at}/ruleIndex`;
    }
    const namedId = this.string(result, 'ruleId', at) ?? (reference === undefined ? undefined : this.string(reference, 'id', `${at}/rule`));
    const rule = index >= 0 ? this.ruleAt(component, index, indexAt) : namedId === undefined ? undefined : this.ruleById(component, namedId);
    const ownId = rule === undefined ? undefined : own(rule.rule, 'id');
    const ruleId = namedId ?? (typeof ownId === 'string' ? ownId : undefined);
    const message = this.message(result, rule, driver, ruleId, at);
    if (kind !== 'fail' || suppressed) return;
    const level = this.level(result, rule, at);
    if (level === 'none') return;

    const ruleProperties = rule === undefined ? undefined : own(rule.rule, 'properties');
    const resultProperties = own(result, 'properties');
    const band =
      (isObject(ruleProperties) ? securityBand(own(ruleProperties, 'security-severity')) : null) ??
      (isObject(resultProperties) ? securityBand(own(resultProperties, 'security-severity')) : null);
    const severity = severityOf(band ?? (level as ToolSeverity), this.options.severity);

    const where = this.location(result, run, runAt, at);
    const parts: (string | number)[] = [ruleId ?? ''];
    const fingerprints = this.pairs(result, 'fingerprints', at);
    const partial = fingerprints === null ? this.pairs(result, 'partialFingerprints', at) : null;
    if (fingerprints !== null) parts.push('fingerprints', ...fingerprints);
    else if (partial !== null) parts.push('partialFingerprints', where?.place.key ?? '', ...partial);
    else parts.push('location', where?.place.key ?? '', message);
    // Repeats are counted by the first id, not the identity: an id is short, an identity holds a message
    // (hashing 50,000 long keys into a Map costs more than the rest of the count).
    const named = ruleId ?? 'result';
    let id = findingId(this.source, named, JSON.stringify(parts));
    const repeats = this.seen.get(id) ?? 0;
    this.seen.set(id, repeats + 1);
    if (repeats > 0) id = findingId(this.source, named, JSON.stringify([...parts, repeats]));

    if (this.findings.length >= SNAPSHOT_FINDINGS_MAX) this.fail(at, `more than ${SNAPSHOT_FINDINGS_MAX} findings in one snapshot`);
    const shownAt = where === null ? '' : where.line === undefined ? ` (${where.place.shown})` : ` (${where.place.shown}:${where.line})`;
    this.findings.push({ id, severity, title: titleOf(`${message}${shownAt}`) });
  }

  /** A fingerprint object's pairs, keys sorted, flattened (`[k1, v1, k2, v2]`); null when it is absent or empty. */
  pairs(result: Json, key: SarifKey, at: string): string[] | null {
    const object = this.object(result, key, at);
    if (object === undefined) return null;
    const keys = Object.keys(object).sort();
    if (keys.length === 0) return null;
    const flat: string[] = [];
    for (const name of keys) {
      const print = object[name];
      if (typeof print !== 'string') this.fail(`${at}/${key}${pointerOf([name])}`, `is ${shown(print)}, not a string`);
      flat.push(name, print);
    }
    return flat;
  }
}

/** The source a log's snapshot is filed under: the caller's, else the one tool name every run shares. */
function sourceOf(runs: readonly { name: string; at: string }[], options: ReadOptions): string {
  const { file, source } = options;
  if (source !== undefined) {
    const problem = sourceNameProblem(source);
    if (problem !== null) badInput(file, '--source', `${shown(source)} cannot name a source: ${problem}`);
    return source;
  }
  const first = runs[0]!;
  const other = runs.find((run) => run.name !== first.name);
  if (other !== undefined) {
    badInput(
      file,
      other.at,
      `the runs come from several tools (${shown(first.name)}, ${shown(other.name)}): name the one source they are filed under with --source`,
    );
  }
  const problem = sourceNameProblem(first.name);
  if (problem !== null) badInput(file, first.at, `the tool's name ${shown(first.name)} cannot name a source (${problem}): name one with --source`);
  return first.name;
}

/**
 * A SARIF 2.1.0 log (`text`) as one source's whole snapshot (the module's
 * header says what a finding is, its severity and its identity). Every
 * refusal is one line naming `options.file` and a JSON pointer.
 */
export function readSarif(text: string, options: ReadOptions): Snapshot {
  const { file } = options;
  const log = parseJsonText(text, file);
  if (!isObject(log)) badInput(file, null, `the top level is ${shown(log)}, not a SARIF log (an object with "version" and "runs")`);
  const version = own(log, 'version');
  if (version === undefined) badInput(file, '/version', 'missing: a SARIF log names its version; gapflow reads SARIF 2.1.0');
  if (version !== '2.1.0') badInput(file, '/version', `SARIF ${shown(version)} is not read; gapflow reads SARIF 2.1.0`);
  const runs = own(log, 'runs');
  if (runs === null) badInput(file, '/runs', 'is null: the producer failed, so the log is not a whole snapshot');
  if (!Array.isArray(runs)) badInput(file, '/runs', runs === undefined ? 'missing: a SARIF log has runs' : `is ${shown(runs)}, not an array`);
  if (runs.length === 0) badInput(file, '/runs', 'is empty: the log holds no tool run, so it is no snapshot of one');

  const reader: SarifReader = new SarifReader(options, '');
  const tools = runs.map((value, r) => {
    const run = reader.item(runs, r, '/runs');
    const tool = reader.needed(run, 'tool', `/runs/${r}`);
    const driver = reader.needed(tool, 'driver', `/runs/${r}/tool`);
    const name = reader.string(driver, 'name', `/runs/${r}/tool/driver`);
    if (name === undefined) reader.fail(`/runs/${r}/tool/driver/name`, 'missing: a tool has a name');
    return { run, tool, driver, name, at: `/runs/${r}/tool/driver/name` };
  });
  const source = sourceOf(tools, options);

  const findings = new SarifReader(options, source);
  for (let r = 0; r < tools.length; r++) {
    const { run, tool, driver } = tools[r]!;
    const runAt = `/runs/${r}`;
    const results = findings.whole(run, runAt);
    const component: Component = { at: `${runAt}/tool/driver`, value: driver };
    for (let k = 0; k < results.length; k++) {
      const at = `${runAt}/results/${k}`;
      findings.result(findings.item(results, k, `${runAt}/results`), tool, `${runAt}/tool`, component, run, runAt, at);
    }
  }
  return { source, format: 'sarif', findings: findings.findings };
}

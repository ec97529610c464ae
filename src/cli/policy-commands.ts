import { policyReports, policyStates } from '../core/index.js';
import type { GapflowEvent } from '../../events/index.js';
import { writeSessionFile } from '../log/index.js';
import { metricPolicies, POLICY_NAMES } from '../policies/index.js';
import { recordedButNotWrittenLine, renderPolicyCheck } from '../render/index.js';
import type { Session } from '../session/index.js';
import { COMPLETE_WHEN_WORDS, spellingKey } from '../../events/index.js';
import { DECIMAL, list, type ParsedCall, UsageError, wordOf } from './args.js';
import { databaseSession, type CliIO, open, printJson, sessionDir, type WhereOptions, command } from './common.js';
import type { CHECK_FLAGS } from './table.js';

/** A flag's word as the schemas want it: a number, a boolean, or a lower-cased word (they judge the rest). */
export function settingValue(raw: string): unknown {
  const word = raw.trim();
  if (DECIMAL.test(word)) return Number(word);
  if (word === 'true' || word === 'false') return word === 'true';
  return word.toLowerCase();
}

/** The session settings that `init`'s policy flags ask for, their words in any spelling; session.started's check judges the rest. */
export function policyInitSettings(values: Record<string, unknown>) {
  // Any spelling of a name; which names exist, session.started's check says (as it does for `append`).
  const policies = list(typeof values.policy === 'string' ? values.policy : undefined)?.map(spellingKey);
  if (policies !== undefined && policies.length === 0) throw new UsageError(`--policy needs one or more of ${POLICY_NAMES.join(', ')}`);
  const completeWhen = typeof values['complete-when'] === 'string' ? wordOf('--complete-when', values['complete-when'], COMPLETE_WHEN_WORDS) : undefined;
  const policySettings: Record<string, Record<string, unknown>> = {};
  for (const policy of metricPolicies()) {
    for (const [flag, key] of Object.entries(policy.settingFlags)) {
      const raw = values[`${policy.name}-${flag}`];
      if (typeof raw === 'string') (policySettings[policy.name] ??= {})[key] = settingValue(raw);
    }
  }
  return {
    policies,
    completeWhen,
    policySettings: Object.keys(policySettings).length > 0 ? policySettings : undefined,
  };
}

/**
 * The reports the metrics among `events` leave beside the log (each
 * policy's own files, however the metrics arrived: `record`, `append`),
 * written under the session folder. Returns the paths written.
 */
export function writePolicyReports(session: Session, io: CliIO, where: WhereOptions, events: readonly GapflowEvent[]): string[] {
  const reports = policyReports(session.current, events);
  // A database session keeps no folder: its reports are written where --dir names, else not at all (status --write too).
  if (reports.length === 0 || (where.dir === undefined && databaseSession(where, io) !== null)) return [];
  const folder = sessionDir(where, io);
  // The events are recorded: a report that cannot be written costs the report, never the call (run again, it would record them twice).
  return reports.flatMap((report) => {
    try {
      return [writeSessionFile(folder, report.path, report.content)];
    } catch (error) {
      io.stderr(recordedButNotWrittenLine(report.path, error instanceof Error ? error.message : String(error)));
      return [];
    }
  });
}

/** `check [--verbose]`: each policy's current verdict; verbose adds each policy's CONVERGENCE CHECK tree. */
export const check = command<ParsedCall<typeof CHECK_FLAGS>>(({ values }, io) => {
  const session = open(values, io);
  if (values.json) return printJson(io, { policies: policyStates(session.view), state: session.view.machine.state });
  io.stdout(renderPolicyCheck(session.view, values.verbose === true));
});

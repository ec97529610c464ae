import { GATE_FLAG, Refusal } from '../core/index.js';
import { allowFolder, approveCommand, commandApproved, foreignFolder, revokeCommand, trustPlace } from '../log/index.js';
import { terminalSafeLines } from '../render/index.js';
import type { Session } from '../session/index.js';
import { type ParsedCall, UsageError } from './args.js';
import { databaseSession, foundSessionDir, type WhereOptions, open, printJson, type CliIO, command } from './common.js';
import type { TRUST_FLAGS } from './table.js';

/*
 * The one door through which a session's check command reaches a shell: it
 * runs only when this user set it here (at `init`) or approved this
 * exact text for this session (`gapflow trust --allow`). A log, an import, a
 * copied folder or a database row can carry a command; none can carry the
 * approval, which lives in the user's own config folder (src/log/trust-store.ts).
 */

/** Where an approval names the session: its log's real path, or its database and name. */
export function trustPlaceOf(session: Session): string {
  return trustPlace(session.log.location);
}

/** Refuses, saying how to approve it, when this user never chose `command` for `session`; the command is not run. */
export function refuseUnapproved(session: Session, command: string, io: Pick<CliIO, 'env'>): void {
  if (commandApproved(io.env, trustPlaceOf(session), command)) return;
  throw new Refusal(
    `the check ${JSON.stringify(command.slice(0, 200))} was not run: you neither set it on this machine (at init) nor approved it, and gapflow runs a session's check only then (one that came with a log, an import, a copied folder or a database row never runs by itself); nothing was recorded, and the session does not complete until the check runs and passes`,
    'approve_check',
  );
}

/** `init` with a check: the user typed the command here, so it is theirs; a failure to keep that is one line, and the session stands. */
export function keepTypedCommand(session: Session, command: string, io: CliIO): void {
  if (session.view.settings?.verify?.command !== command) return;
  try {
    approveCommand(io.env, trustPlaceOf(session), command);
  } catch (error) {
    io.stderr(
      `gapflow: the session is made, but its check could not be marked as yours (${error instanceof Error ? error.message : String(error)}); approve it with: gapflow trust --allow\n`,
    );
  }
}

/**
 * `gapflow trust`: shows the session's check command and whether this user
 * approved it; `--allow` approves it as shown, `--revoke` takes that back.
 * `--folder` allows a session folder that someone else owns or may write,
 * for as long as the same user owns it.
 */
export const trust = command<ParsedCall<typeof TRUST_FLAGS>>(({ values }, io) => {
  if (values.allow && values.revoke) throw new UsageError('trust takes --allow or --revoke, not both');
  if (values.folder) {
    if (values.allow || values.revoke) throw new UsageError('trust --folder allows the folder itself: give it without --allow or --revoke');
    return trustFolderOf(values, io, values.json);
  }
  const session = open(values, io);
  const command = session.view.settings?.verify?.command;
  const place = trustPlaceOf(session);
  if (command === undefined) {
    if (values.allow || values.revoke) throw new Refusal(`this session has no check command to approve (set one at init with --${GATE_FLAG})`);
    if (values.json) return printJson(io, { place, command: null, approved: false });
    return io.stdout(`${place}: this session has no check command.\n`);
  }
  if (values.allow) approveCommand(io.env, place, command);
  if (values.revoke) revokeCommand(io.env, place, command);
  const approved = commandApproved(io.env, place, command);
  if (values.json) return printJson(io, { place, command, approved });
  const verdict = values.allow
    ? 'Approved: gapflow runs it when a round close or an approval would complete the session.'
    : approved
      ? 'Approved on this machine: gapflow runs it when a round close or an approval would complete the session (gapflow trust --revoke takes that back).'
      : 'Not approved on this machine: gapflow does not run it. Read it, and if you want it run, approve it with: gapflow trust --allow';
  io.stdout(`Session: ${place}\nCheck command, as written:\n${fence(command)}\n${verdict}\n`);
});

/** `trust --folder`: allows the session folder the call names (found without the ownership check, which is what it answers). */
function trustFolderOf(values: WhereOptions, io: CliIO, json: boolean | undefined): void {
  if (databaseSession(values, io) !== null) throw new UsageError('trust --folder allows a session folder; a database session has none');
  const dir = foundSessionDir(values, io);
  const foreign = foreignFolder(dir);
  if (foreign === null) {
    if (json) return printJson(io, { folder: dir, allowed: true, owner: null });
    return io.stdout(`${dir} is yours alone: nothing to allow.\n`);
  }
  allowFolder(io.env, dir, foreign.owner);
  if (json) return printJson(io, { folder: dir, allowed: true, owner: foreign.owner });
  io.stdout(
    `Allowed ${dir} (${foreign.path} is ${foreign.why}) while uid ${foreign.owner} owns it. Its check command still runs only once you approve it: gapflow trust\n`,
  );
}

/** A command shown as written, set off from the text around it, one `| ` per line; what a terminal would act on is spelt out. */
function fence(command: string): string {
  return terminalSafeLines(command)
    .split('\n')
    .map((line) => `  | ${line}`)
    .join('\n');
}

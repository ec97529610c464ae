/*
 * How a PostgreSQL store is named on the command line and in messages: a
 * connection URL (its password never shown) and a session name per stream.
 */

/** A target that names a PostgreSQL database rather than a folder. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/** The database a URL names, for messages: scheme, user, host, port and database, never the password or the query. */
export function shownDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${parsed.username}@`;
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres://(a URL that does not parse)';
  }
}

/** The longest session name a store takes. */
export const MAX_SESSION_NAME = 128;

/**
 * What is wrong with a session name, or null when it is a good one: 1 to 128
 * characters of letters, digits and `. _ - / :`, starting with a letter or
 * digit, with no empty, `.` or `..` part between slashes (a name is shown in
 * tables and URLs, and names a folder in a folder store, so it holds no space
 * or control character and never climbs out).
 */
export function sessionNameProblem(name: string): string | null {
  if (name.length === 0) return 'a session name cannot be empty';
  if (name.length > MAX_SESSION_NAME) return `a session name has at most ${MAX_SESSION_NAME} characters, not ${name.length}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/:-]*$/.test(name))
    return `session name ${JSON.stringify(name)} may hold only letters, digits and . _ - / : (starting with a letter or digit)`;
  // In a folder store a name is a path below the store's folder: it never climbs out of it.
  if (name.split('/').some((part) => part === '' || part === '.' || part === '..'))
    return `session name ${JSON.stringify(name)} has an empty, . or .. part between its slashes`;
  return null;
}

/** What `verify` throws after it has printed its finding: the exit code to give. */
export class Unverified extends Error {
  constructor(readonly code: number) {
    super('unverified');
  }
}

/** The exit code of the error `verify` throws after it has printed its finding; null for any other error. */
export function unverifiedCode(error: unknown): number | null {
  return error instanceof Unverified ? error.code : null;
}

import type { MessagePort } from 'node:worker_threads';

/*
 * What the store's thread and its database worker say to each other. The
 * store asks synchronously (it posts a request, then sleeps on a shared word
 * until the worker has posted the answer); notices of other writers' commits
 * come on a second port, heard as ordinary messages.
 */

/** One SQL statement and its parameters. */
export interface Step {
  text: string;
  values?: readonly unknown[];
}

/** Statements run in order on the store's connection; the first that fails ends the request (rolling back an open transaction). */
export interface Request {
  steps: readonly Step[];
}

export type Row = Record<string, unknown>;

export type Answer =
  | { ok: true; results: ReadonlyArray<Row[]> }
  /** `lost`: no answer from the server stands behind it (the connection could not be made, or went, or the worker gave up on it). */
  | { ok: false; message: string; code: string | null; step: number; lost: boolean };

/** What starts the worker. */
export interface WorkerData {
  url: string;
  /** Requests in, answers out. */
  requests: MessagePort;
  /** Notices of commits (`LISTEN`), once the store asks for them. */
  notices: MessagePort;
  /** Word 0: the count of answers posted; the store sleeps until it moves. */
  answered: SharedArrayBuffer;
}

/** Asks the worker to start listening for commit notices (answered like any request). */
export const LISTEN = '-- gapflow: listen';

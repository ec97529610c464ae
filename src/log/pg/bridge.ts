import type * as Threads from 'node:worker_threads';
import { LogError } from '../types.js';
import { LISTEN, type Answer, type Request, type Row, type Step } from './protocol.js';

const { existsSync } = process.getBuiltinModule('node:fs');

/*
 * A synchronous door to PostgreSQL. The store port is synchronous (the CLI
 * and the session API are), and every PostgreSQL driver for Node is async;
 * so the driver runs on a worker thread and this side sleeps on a shared
 * word (Atomics.wait) until the worker has posted its answer, then takes it
 * off the port with receiveMessageOnPort. Written here rather than taken
 * from a library (synckit does the same): it is these forty lines, and the
 * store needs a worker that keeps its connection and an open transaction
 * between calls, and a second port for commit notices.
 */

/** The socket errors that say the server is out of reach (not that it refused a statement). */
const UNREACHABLE: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** How long one request may take before the store gives up on the database (a lock wait ends sooner: lock_timeout). */
const ANSWER_WITHIN_MS = 60_000;

/**
 * A failed request: what PostgreSQL said, and its SQLSTATE code; or, with
 * `lost`, a request no answer from the server stands behind (a connection
 * that could not be made or went, a database that did not answer in time):
 * it says nothing about what was asked, and may go through when tried again.
 */
export class DatabaseError extends LogError {
  constructor(
    message: string,
    readonly code: string | null,
    readonly lost = false,
  ) {
    super(message);
  }
}

/**
 * The worker's file: beside this module (the library's build), beside the
 * bin's bundle, or the built one (a test run from the sources). The bin's is
 * CommonJS: `pg` bundled into it requires Node's modules as it was written to.
 */
function workerFile(): URL {
  for (const relative of ['./worker.js', './pg-worker.cjs', '../pg-worker.cjs', '../../../dist/pg-worker.cjs']) {
    const url = new URL(relative, import.meta.url);
    if (existsSync(url)) return url;
  }
  throw new LogError('the PostgreSQL store needs its worker (pg-worker.js), which this install lacks: build gapflow first (npm run build)');
}

export class Bridge {
  readonly #worker: Threads.Worker;
  readonly #requests: Threads.MessagePort;
  readonly #notices: Threads.MessagePort;
  readonly #receive: typeof Threads.receiveMessageOnPort;
  readonly #answered: Int32Array;
  readonly #hearers = new Set<(notice: Notice) => void>();
  #closed = false;

  /** Whether this bridge was closed (by its owner, or after a request that never came back). */
  get closed(): boolean {
    return this.#closed;
  }
  /** Hearers that keep the process alive: the notice port is held open while any is. */
  #persistent = 0;

  constructor(
    url: string,
    /** For messages: the database, without its password. */
    readonly where: string,
  ) {
    // Taken when a store first connects: a command on a folder never pays for worker_threads at start-up.
    const { MessageChannel, receiveMessageOnPort, Worker } = process.getBuiltinModule('node:worker_threads') as typeof Threads;
    this.#receive = receiveMessageOnPort;
    const requests = new MessageChannel();
    const notices = new MessageChannel();
    const answered = new SharedArrayBuffer(4);
    this.#answered = new Int32Array(answered);
    this.#requests = requests.port1;
    this.#notices = notices.port1;
    this.#worker = new Worker(workerFile(), {
      workerData: { url, requests: requests.port2, notices: notices.port2, answered },
      transferList: [requests.port2, notices.port2],
      // The worker is a module file: flags that say how to read the process's own code (`node --input-type=module -e`) would stop it.
      execArgv: process.execArgv.filter((flag) => !/^(--input-type|--eval|-e$|--print|-p$)/.test(flag)),
    });
    // Never what keeps a process alive: a CLI call ends when its work does, and the server rolls back what it left open.
    this.#worker.unref();
    this.#worker.on('error', () => undefined);
    this.#notices.on('message', (notice: Notice) => {
      for (const hear of this.#hearers) hear(notice);
    });
    this.#notices.unref();
  }

  /** Runs `steps` in order and returns each one's rows; throws DatabaseError for the first that fails. */
  run(steps: readonly Step[]): Row[][] {
    if (this.#closed) throw new DatabaseError(`${this.where}: this store was closed`, null, true);
    const before = Atomics.load(this.#answered, 0);
    const request: Request = { steps };
    this.#requests.postMessage(request);
    const deadline = Date.now() + ANSWER_WITHIN_MS;
    while (Atomics.load(this.#answered, 0) === before) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.#answered, 0, before, left) === 'timed-out') {
        // Its answer may still come, and would be taken for the next request's: this worker and its connection go
        // (the server rolls back what they left open), and the next store on this database starts afresh.
        this.close();
        throw new DatabaseError(`${this.where}: the database did not answer within ${ANSWER_WITHIN_MS / 1000} s`, null, true);
      }
    }
    const answer = this.#receive(this.#requests)?.message as Answer | undefined;
    if (answer === undefined) throw new DatabaseError(`${this.where}: the database worker answered nothing`, null, true);
    if (!answer.ok) {
      const reach =
        (answer.code !== null && UNREACHABLE.has(answer.code)) || /^(timeout expired|Connection terminated due to connection timeout)/.test(answer.message)
          ? 'cannot reach the database: '
          : '';
      throw new DatabaseError(`${this.where}: ${reach}${answer.message}`, answer.code, answer.lost);
    }
    return [...answer.results];
  }

  /** Asks the worker to listen for commit notices (again, after a lost connection); throws DatabaseError when it cannot. */
  listen(): void {
    this.run([{ text: LISTEN }]);
  }

  /** Calls `hear` with every commit notice until the returned function is called; `persistent` keeps the process alive meanwhile. */
  hear(hear: (notice: Notice) => void, persistent = false): () => void {
    this.#hearers.add(hear);
    if (persistent && this.#persistent++ === 0) this.#notices.ref();
    let heard = true;
    return () => {
      if (!heard) return;
      heard = false;
      this.#hearers.delete(hear);
      if (persistent && --this.#persistent === 0) this.#notices.unref();
    };
  }

  /** Ends the worker and its connections. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#notices.close();
    this.#requests.close();
    void this.#worker.terminate();
  }
}

/** A commit notice: `payload` as the writer sent it, or `lost` when the listening connection dropped (what was missed must be read). */
export type Notice = { payload: string } | { lost: true };

import type { Answer, Request, WorkerData } from './protocol.js';

const { workerData } = process.getBuiltinModule('node:worker_threads');

/*
 * The worker thread's entry: it answers the store's requests with what
 * worker-serve.ts (the driver, loaded here) says, and when that cannot load
 * (`pg` missing, a broken install) with the reason, at once: the store is
 * asleep until an answer comes, and a worker that died loading would leave
 * it waiting out its whole time limit.
 */

const data = workerData as WorkerData;
const counter = new Int32Array(data.answered);

const answerer: Promise<(request: Request) => Promise<Answer>> = import('./worker-serve.js').then(
  (module) => module.answerer(data),
  (error: unknown) => {
    const message = `the PostgreSQL driver did not load (${error instanceof Error ? error.message : String(error)})`;
    return () => Promise.resolve({ ok: false, message, code: null, step: 0, lost: false });
  },
);

data.requests.on('message', (request: Request) => {
  void answerer
    .then((answer) => answer(request))
    .then((reply) => {
      data.requests.postMessage(reply);
      Atomics.add(counter, 0, 1);
      Atomics.notify(counter, 0);
    });
});

const cell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Waits `ms` on this thread without spinning: for a synchronous caller (a
 * store, a lock, a one-shot read) that has nothing else to do meanwhile.
 */
export function pauseFor(ms: number): void {
  if (ms > 0) Atomics.wait(cell, 0, 0, ms);
}

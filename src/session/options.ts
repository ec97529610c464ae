import type { InspectOption } from './live.js';

export interface SessionOptions {
  /** Where timestamps come from (the core never reads a clock). */
  clock?: () => Date;
  /** Where event ids come from. */
  newId?: () => string;
  /**
   * Run a live XState actor beside the session, wired to this inspection
   * observer (e.g. `createWebSocketInspector().inspect` from @statelyai/inspect).
   * On open it replays the log's recorded machine events; then it listens.
   */
  inspect?: InspectOption;
  /**
   * Keep a checkpoint of the view beside a file log (default true), so an
   * open reads the checkpoint and only the lines after it. False: every
   * open replays the whole log, and no checkpoint is written.
   */
  checkpoints?: boolean;
  /**
   * Open from the head checkpoint when it is current (the open gaps, the
   * last rounds, the machine; closed gaps by lookup in their index): a gap
   * or round write then reads a few kilobytes and one log line whatever the
   * log's length, and the whole view is read only when something asks for
   * it (`view`, `subscribe`, `follow`, a request the head cannot decide). A
   * damaged line before the head's is then found by the read that needs it.
   */
  head?: boolean;
}

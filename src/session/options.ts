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
}

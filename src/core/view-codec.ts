import { freezeNew } from './freeze.js';
import { readView } from './view-json.js';
import type { SessionView } from './view.js';

export { encodeView, VIEW_SHAPE } from './view-json.js';

/**
 * The view a checkpoint's text holds, frozen as replay leaves it (so the
 * fold goes on from it as from its own output); null
 * when the text is not a view this build wrote (the caller then replays the
 * log). The text's format is in view-json.ts.
 */
export function decodeView(text: string): SessionView | null {
  const view = readView(text);
  return view === null ? null : freezeNew(view);
}

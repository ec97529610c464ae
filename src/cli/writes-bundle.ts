import { requireCached } from '../log/index.js';
import type * as SessionCommands from './session-commands.js';

/*
 * The bin's write commands as the build ships them: session-commands.ts
 * with dispatch, bundled whole as CommonJS (`dist/session-commands.cjs`)
 * and compiled through V8's code cache (log/code-cache.ts). The bundle
 * stands in for session-commands.js under that name (`dist/session-commands.js`
 * is this module), so the table's loader is the same in the bundle and in
 * the tsc output, where it is the module itself.
 */
const writes = requireCached(new URL('./session-commands.cjs', import.meta.url)) as typeof SessionCommands;

export const { init, gap, round, decide, dispatchBin } = writes;

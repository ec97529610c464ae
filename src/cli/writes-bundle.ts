import { requireCached } from '../log/index.js';
import type * as SessionCommands from './session-commands.js';

/*
 * The write commands as the module bin (`dist/gapflow.js`) takes them:
 * session-commands.ts with dispatch, bundled whole as CommonJS from
 * write-bin.ts (`dist/session-commands.cjs`, which the bin, launch.ts,
 * runs a write call from) and compiled through V8's code cache
 * (log/code-cache.ts). The bundle
 * stands in for session-commands.js under that name (`dist/session-commands.js`
 * is this module), so the table's loader is the same in the bundle and in
 * the tsc output, where it is the module itself.
 */
const writes = requireCached(new URL('./session-commands.cjs', import.meta.url)) as typeof SessionCommands;

export const { init, gap, round, decide, dispatchBin } = writes;

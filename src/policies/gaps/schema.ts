import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';

/*
 * The gap policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

export const Settings = onFirstUse(() => z.strictObject({}));
export const Metrics = onFirstUse(() => z.never());

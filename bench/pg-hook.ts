/**
 * `node dist/bench/pg-hook.js URL SESSION [head|whole]`: what a stop hook
 * decides on session SESSION of the PostgreSQL database at URL, as a
 * process of its own (`gapflow hook` works on session folders only: it keeps
 * each agent's blocks beside the log). `head`: from the head row when it is
 * current and answers the loop (`peekHead`, as the hook on a folder reads
 * its head), else the whole view; `whole`: from the whole view, resumed
 * from its checkpoint, as every call on a database did before it kept a
 * head. Prints the verdict as JSON.
 */
import { closePostgresStores, hookStep, PgLog, Session } from '../src/index.js';
import { hookVerdict } from '../src/render/index.js';
import { peekHead } from '../src/session/index.js';

const [url, name, mode = 'head'] = process.argv.slice(2);
if (!url || !name || (mode !== 'head' && mode !== 'whole')) throw new Error('usage: pg-hook URL SESSION [head|whole]');
const store = new PgLog(url, name);
const head = mode === 'head' ? peekHead(store) : null;
const session = head === null ? Session.open(store) : null;
const call = { agentSession: 'bench', event: 'Stop' as const, stopHookActive: false };
const step = hookStep(head ?? session!.view, call, { blocks: 0, maxBlocks: 5 });
process.stdout.write(`${JSON.stringify(hookVerdict(step.view, call, step.context, step.decision))}\n`);
// What an open keeps after its turn, kept now: the connection closes next.
session?.saveCheckpoints();
closePostgresStores();

import type { BodyOf, Decided } from '../../events/index.js';
import { refusePaused, refuser, refuseRoundStart, type Refuse } from './refuse.js';
import { ALLOWED_MOVES, STATE_CLASS } from './rules.js';
import type { SessionView } from './view.js';

type GapBody = BodyOf<'gap.opened'> | BodyOf<'gap.moved'> | BodyOf<'gap.severity_changed'>;

/**
 * A gap event: refused while PAUSED; between rounds it first starts the next
 * round (R8), refused where no round can start; then judged by its own rule.
 */
export function decideGapEvent(view: SessionView, body: GapBody): Decided[] {
  const refuse = refuser(body);
  const startsRound = view.rounds.length > 0 && !view.roundOpen;
  if (startsRound) refuseRoundStart(view, refuse);
  refusePaused(view, refuse);
  if (body.type === 'gap.opened') openGap(view, body, refuse);
  else if (body.type === 'gap.moved') moveGap(view, body, refuse);
  else changeSeverity(view, body, refuse);
  return startsRound ? [{ type: 'round.started', data: { round: view.rounds.length + 1 } }, body] : [body];
}

function openGap(view: SessionView, body: BodyOf<'gap.opened'>, refuse: Refuse): void {
  const existing = view.gaps.get(body.data.id);
  if (existing) refuse(`gap ${body.data.id} already exists (${existing.severity}, ${existing.state})`);
  if (body.data.spawnedBy !== undefined && !view.gaps.has(body.data.spawnedBy)) refuse(`spawned-by gap ${body.data.spawnedBy} is unknown`);
}

/** R10: only the lifecycle's moves and its shortcuts; blocked-by names another known gap. */
function moveGap(view: SessionView, body: BodyOf<'gap.moved'>, refuse: Refuse): void {
  const gap = view.gaps.get(body.data.id) ?? refuse(`unknown gap ${body.data.id}`);
  const allowed = ALLOWED_MOVES[gap.state];
  if (!allowed.includes(body.data.to)) {
    const already = gap.state === body.data.to ? ' already' : '';
    refuse(`gap ${gap.id} is${already} ${gap.state}; moves allowed from ${gap.state}: ${allowed.join(', ')}`);
  }
  if (body.data.blockedBy !== undefined) {
    if (body.data.to !== 'BLOCKED') refuse('blocked-by goes only with a move to BLOCKED');
    if (body.data.blockedBy === gap.id) refuse(`gap ${gap.id} cannot wait on itself`);
    if (!view.gaps.has(body.data.blockedBy)) refuse(`blocked-by gap ${body.data.blockedBy} is unknown`);
  }
}

/** R7: a severity change of a gap that is not closed. */
function changeSeverity(view: SessionView, body: BodyOf<'gap.severity_changed'>, refuse: Refuse): void {
  const gap = view.gaps.get(body.data.id) ?? refuse(`unknown gap ${body.data.id}`);
  if (gap.severity === body.data.to) refuse(`gap ${gap.id} is already ${gap.severity}`);
  if (STATE_CLASS[gap.state] === 'closed') refuse(`gap ${gap.id} is ${gap.state}; reopen it before changing its severity`);
}

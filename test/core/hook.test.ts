import { describe, expect, it } from 'vitest';
import { hookDecision, hookStep, type HookCall, type HookContext, type SessionView } from '../../src/core/index.js';
import type { Session } from '../../src/index.js';
import { hookVerdict } from '../../src/render/index.js';
import { newSession, playRound } from '../support.js';

const call: HookCall = { agentSession: 'agent-A', event: 'Stop', stopHookActive: false };
const context: HookContext = { blocks: 0, maxBlocks: 5 };

/** The core's decision with the renderer's words for it, as the hook answers. */
const hook = (view: SessionView | null, c: HookCall, ctx: HookContext) => hookVerdict(view, c, ctx, hookDecision(view, c, ctx));

/** Baseline GAP-H (HIGH), GAP-M (MEDIUM); round 1 resolves GAP-M: CONVERGING between rounds. */
function converging(): Session {
  const s = newSession();
  s.openGap('GAP-H', 'HIGH');
  s.openGap('GAP-M', 'MEDIUM');
  playRound(s, { resolve: ['GAP-M'] });
  expect(s.view.machine.state).toBe('CONVERGING');
  return s;
}

function diverging(): Session {
  const s = converging();
  playRound(s, { open: [['GAP-C', 'CRITICAL']] });
  expect(s.view.machine.state).toBe('DIVERGENCE_WARNING');
  return s;
}

describe('hookDecision: its priority order', () => {
  it('no session: lets the agent stop and says nothing', () => {
    expect(hook(null, call, context)).toMatchObject({ block: false, rule: 'no_session', systemMessage: null, bind: false });
  });

  it('a session bound to another agent session is not this hook business: stop, no binding, count untouched', () => {
    const s = converging();
    s.record({ type: 'session.bound', data: { agentSession: 'agent-B' } });
    const verdict = hook(s.view, { ...call, stopHookActive: true }, { ...context, blocks: 3 });
    expect(verdict).toMatchObject({ block: false, rule: 'foreign_session', bind: false, blocks: 3, systemMessage: null });
  });

  it('a turn the user ended is never pushed on, though the loop would keep it going, and counts no block', () => {
    // Given a converging loop that would block this stop, when the harness says the user ended the turn,
    const verdict = hook(converging().view, { ...call, userStopped: true }, { ...context, blocks: 2 });
    // then the agent stops, and its blocks in a row start afresh.
    expect(verdict).toMatchObject({ block: false, rule: 'user_stopped', blocks: 0 });
    expect(hook(converging().view, call, context)).toMatchObject({ block: true, rule: 'continue' });
  });

  it('a redirect request comes before everything else, even a decision due', () => {
    const verdict = hook(diverging().view, call, { ...context, stopRequest: { kind: 'redirect', reason: 'switch to plan B' } });
    expect(verdict).toMatchObject({ block: false, rule: 'redirect' });
    expect(verdict.systemMessage).toContain('switch to plan B');
  });

  it('a stop request lets a converging loop stop', () => {
    const verdict = hook(converging().view, call, { ...context, stopRequest: { kind: 'stop', reason: 'user said enough' } });
    expect(verdict).toMatchObject({ block: false, rule: 'stop_requested', blocks: 0 });
    expect(verdict.systemMessage).toContain('user said enough');
  });

  it('COMPLETE lets it stop, names the outcome, and never binds (nothing is recorded after COMPLETE)', () => {
    const s = converging();
    s.makeDecision('abandon');
    const verdict = hook(s.view, call, context);
    expect(verdict).toMatchObject({ block: false, rule: 'complete', bind: false });
    expect(verdict.systemMessage).toContain('ABANDONED');
  });

  it('DIVERGENCE_WARNING lets it stop with the decision prompt for the user', () => {
    const verdict = hook(diverging().view, call, context);
    expect(verdict).toMatchObject({ block: false, rule: 'ask_user', bind: true });
    expect(verdict.systemMessage).toMatch(/^Session Progress: Round 2 of max 10\n/);
    expect(verdict.systemMessage).toContain('=== Options ===');
  });

  it('PAUSED lets it stop and tells the user how to resume', () => {
    const s = converging();
    s.makeDecision('pause');
    const verdict = hook(s.view, call, context);
    expect(verdict).toMatchObject({ block: false, rule: 'paused' });
    expect(verdict.systemMessage).toContain('gapflow decide resume');
  });

  it('CONVERGING blocks with the round to start and the open gaps by severity, and binds an unbound session', () => {
    const verdict = hook(converging().view, call, context);
    expect(verdict).toMatchObject({ block: true, rule: 'continue', blocks: 1, bind: true, systemMessage: null });
    expect(verdict.reason).toContain('Start round 2');
    expect(verdict.reason).toContain('HIGH GAP-H');
    expect(verdict.reason).not.toContain('GAP-M');
  });

  it('an open round is named as the one to close', () => {
    const s = converging();
    s.startRound();
    expect(hook(s.view, call, context).reason).toMatch(/round 2 is open.*gapflow round close/s);
  });

  it('FLAT blocks and asks for a change of approach, with the flat count', () => {
    const s = converging();
    playRound(s, {});
    expect(s.view.machine.state).toBe('FLAT');
    const verdict = hook(s.view, call, context);
    expect(verdict.block).toBe(true);
    expect(verdict.reason).toContain('1 of 2 flat rounds');
    expect(verdict.reason).toContain('change the approach');
  });

  it('the focus the user set is in the reason', () => {
    const s = diverging();
    s.makeDecision('prioritize_critical');
    expect(s.view.machine.state).toBe('CONVERGING');
    expect(hook(s.view, call, context).reason).toContain('prioritized: GAP-C');
  });
});

describe('hookDecision: the block cap under stop_hook_active', () => {
  it('counts blocks in a row while stop_hook_active holds and lets it stop after maxBlocks', () => {
    const view = converging().view;
    let blocks = 0;
    const seen: boolean[] = [];
    for (let i = 0; i < 7; i++) {
      const verdict = hook(view, { ...call, stopHookActive: i > 0 }, { blocks, maxBlocks: 3 });
      seen.push(verdict.block);
      blocks = verdict.blocks;
      if (!verdict.block) {
        expect(verdict.rule).toBe('block_cap');
        expect(verdict.systemMessage).toContain('3 times in a row');
        break;
      }
    }
    expect(seen).toEqual([true, true, true, false]);
    expect(blocks).toBe(0);
  });

  it('a stop with stop_hook_active false starts counting afresh', () => {
    const verdict = hook(converging().view, call, { blocks: 5, maxBlocks: 5 });
    expect(verdict).toMatchObject({ block: true, blocks: 1 });
  });

  it('a cap of 0 never blocks', () => {
    expect(hookDecision(converging().view, call, { blocks: 0, maxBlocks: 0 })).toMatchObject({ block: false, rule: 'block_cap' });
  });
});

describe('hookStep: what one hook call records and keeps', () => {
  it('an unbound live session is bound to the calling agent session, and the new block count is kept', () => {
    const step = hookStep(converging().view, call, context);
    expect(step.record).toEqual({ type: 'session.bound', data: { agentSession: 'agent-A' } });
    expect(step.blocks).toBe(1);
    expect(step.decision.block).toBe(true);
  });

  it('a session bound to another agent session records nothing and keeps the count as it was', () => {
    const s = converging();
    s.record({ type: 'session.bound', data: { agentSession: 'agent-B' } });
    const step = hookStep(s.view, { ...call, stopHookActive: true }, { ...context, blocks: 2 });
    expect(step).toMatchObject({ record: null, blocks: null, decision: { rule: 'foreign_session', block: false } });
  });

  it("reads the agent's own standing stop request from the view (the caller passes none)", () => {
    const s = newSession({ policies: ['atoms'] });
    s.recordMetrics('atoms', { pending: 3, resolved: 0, stopRequested: true });
    expect(hookStep(s.view, call, context).decision.rule).toBe('stop_requested');
  });
});

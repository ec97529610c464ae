import { createMemorySession, events, machine, policies, Refusal, render } from '../src/index.js';

// A session in memory (createFileSession(dir, settings) keeps it in dir/events.jsonl instead).
const session = createMemorySession({ maxRounds: 5 });
session.subscribe(({ changes }) => changes.forEach((c) => console.log(`${c.from} -> ${c.to}: ${c.reason}`)));

session.openGap('GAP-1', 'HIGH', { title: 'Parser contract missing' });
session.openGap('GAP-2', 'MEDIUM');

session.startRound();
session.moveGap('GAP-1', 'RESOLVED');
const { events: closed } = session.closeRound();
console.log(`round 1 closed: ${closed.map((e) => e.type).join(', ')}`);

const state = render.toStateJson(session.view);
console.log(`state ${state.state}, next: ${state.decision.action} (${state.decision.reason})`);
console.log(`verdict: ${JSON.stringify(state.rounds[0]?.verdict)}`);

session.startRound();
session.openGap('GAP-3', 'MEDIUM', { title: 'Error codes for the parser' }); // weighted net -2: a flat round
session.closeRound();

try {
  session.makeDecision('narrow_scope', { gaps: ['GAP-2'] });
} catch (error) {
  if (!(error instanceof Refusal)) throw error;
  console.log(`refused (${error.remedy ?? 'no remedy'}): ${error.message}`);
}

console.log(`policies: ${policies.POLICY_NAMES.join(', ')}; events v${events.EVENT_VERSION}`);
console.log(`machine: ${machine.recordOf(machine.snapshotOf(session.view.machine, session.view.config)).state}`);
console.log(render.renderStatus(session.view).split('\n')[0]);

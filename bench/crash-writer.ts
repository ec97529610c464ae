/**
 * Driver for test/log/crash.test.ts: appends events to the session in DIR
 * until it is killed, and reports each acknowledged append on stdout as
 * `first-seq last-seq last-id` (written synchronously, after the append
 * returned). Most appends are single events through the session (with an
 * event id); some are raw batches of long lines through the log, some big
 * enough (hundreds of pages) that a kill can land inside their write: Linux
 * stops copying a write into the page cache when a fatal signal is pending.
 */
import { writeSync } from 'node:fs';
import { EVENT_VERSION } from '../events/index.js';
import { openFileSession, type GapflowEvent } from '../src/index.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: crash-writer DIR');

const session = openFileSession(dir);
let lastSeq = session.view.lastSeq;
let n = 0;
const ack = (events: readonly GapflowEvent[]) => {
  lastSeq = events.at(-1)!.seq;
  writeSync(1, `${events[0]!.seq} ${lastSeq} ${events.at(-1)!.id}\n`);
};

for (;;) {
  const name = `${process.pid}-${n++}`;
  if (Math.random() < 0.75) {
    ack(session.openGap(`G-${name}`, 'LOW', { title: 'crash '.repeat(Math.floor(Math.random() * 80)) }, { eventId: `e-${name}` }).events);
  } else {
    // Now and then a bulk import of ~1,500 events (about 700 KB): a kill during its write can tear it.
    const size = Math.random() < 0.3 ? 1500 : 5 + Math.floor(Math.random() * 40);
    const batch: GapflowEvent[] = Array.from({ length: size }, (_, i) => ({
      v: EVENT_VERSION,
      seq: lastSeq + 1 + i,
      id: `b-${name}-${i}`,
      at: new Date().toISOString(),
      type: 'gap.opened',
      data: { id: `B-${name}-${i}`, severity: 'LOW', title: 'torn? '.repeat(70), blocking: true },
    }));
    session.log.append(batch, lastSeq);
    ack(batch);
  }
}

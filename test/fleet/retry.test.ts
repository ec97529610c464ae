import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPassingReadFailure, retryDelayMs } from '../../src/fleet/index.js';
import { closePostgresStores, createFileSession, FileLog, LogError, PgLog } from '../../src/index.js';
import { DatabaseError } from '../../src/log/index.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * Which failed reads are tried again (they say nothing about the log), and
 * how often: a schedule that backs off and is bounded.
 */

const tempDir = tempDirs('gapflow-retry-');

describe('which failed reads are passing, and which are faults of the log', () => {
  afterAll(() => closePostgresStores());

  it('a connection cut, refused or timed out, and a server shutting down or out of connections, are passing', () => {
    for (const [message, code] of [
      ['db: terminating connection due to administrator command', '57P01'],
      ['db: the database system is starting up', '57P03'],
      ['db: sorry, too many clients already', '53300'],
      ['db: connection failure', '08006'],
      ['db: canceling statement due to lock timeout', '55P03'],
      ['db: cannot reach the database: connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'],
      ['db: Connection terminated unexpectedly', null],
      ['db: cannot reach the database: timeout expired', null],
      ['db: Client has encountered a connection error and is not queryable', null],
    ] as const) {
      expect(isPassingReadFailure(new DatabaseError(message, code)), message).toBe(true);
    }
    expect(isPassingReadFailure(new LogError('db: the database did not answer within 60 s'))).toBe(true);
    expect(isPassingReadFailure(new LogError('db: this store was closed'))).toBe(true);
  });

  it('a database out of reach, read for real, is passing', () => {
    let thrown: unknown;
    try {
      new PgLog('postgres://nobody@127.0.0.1:1/none', 'a/session').read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DatabaseError);
    expect(isPassingReadFailure(thrown)).toBe(true);
  });

  it('a statement the database refused for what it is, or whose message quotes what it read, is a fault', () => {
    expect(isPassingReadFailure(new DatabaseError('db: relation "gapflow.streams" does not exist', '42P01'))).toBe(false);
    expect(isPassingReadFailure(new DatabaseError('db: password authentication failed for user "me"', '28P01'))).toBe(false);
    expect(isPassingReadFailure(new DatabaseError('db: invalid input syntax for type bigint: "Connection terminated unexpectedly"', '22P02'))).toBe(false);
  });

  it('a bad line, a stream that is gone, and a log read for real with a bad line are faults, whatever the path says', () => {
    expect(isPassingReadFailure(new LogError('db session a seq 4: not JSON', 4))).toBe(false);
    expect(isPassingReadFailure(new LogError('no session a in db (`gapflow init --store URL --session a` creates one)'))).toBe(false);
    expect(isPassingReadFailure(new LogError('/w/x: this store was closed/.gapflow/events.jsonl line 3: not JSON'))).toBe(false);
    const dir = join(tempDir(), '.gapflow');
    createFileSession(dir, {}, fixedStamps()).openGap('A', 'LOW');
    appendFileSync(join(dir, 'events.jsonl'), '{"not": "an event"}\n{"nor": "this"}\n');
    let thrown: unknown;
    try {
      new FileLog(dir).read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LogError);
    expect(isPassingReadFailure(thrown)).toBe(false);
  });

  it('a read the file system refused or failed is passing; any other error is a fault', () => {
    const system = (code: string) => Object.assign(new Error(`${code}: open 'events.jsonl'`), { code });
    for (const code of ['EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE', 'ESTALE']) expect(isPassingReadFailure(system(code)), code).toBe(true);
    expect(isPassingReadFailure(system('ENOTDIR'))).toBe(false);
    expect(isPassingReadFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isPassingReadFailure('a string')).toBe(false);
  });
});

describe('the retry schedule', () => {
  it('waits 0.25 s, then twice as long each time, never more than 4 s', () => {
    expect([0, 1, 2, 3, 4, 5, 20, 1000].map(retryDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });
});

import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/*
 * A TCP proxy on loopback between gapflow's database connections and a real
 * PostgreSQL server, which breaks a connection at a chosen moment of a
 * write: the campaigns of test/cli/postgres-faults.test.ts. It reads the
 * wire only to find the two moments a write passes through: the COMMIT
 * (a simple query, as `pg` sends one without parameters) and the statement
 * that inserts a batch's lines (appendLines, src/log/pg/statements.ts).
 */

/** What the proxy does to the next COMMIT that passes. */
export type CommitFault =
  /** Passes it. */
  | 'pass'
  /** Never sends it: both sides cut (the server rolls back). */
  | 'cut-before'
  /** Sends it, then cuts both sides at once: whether it commits is the server's race. */
  | 'cut-during'
  /** Sends it, waits for the server's answer (the commit is done), then cuts both sides without passing the answer on. */
  | 'cut-after';

const COMMIT = Buffer.from('Q\0\0\0\x0bCOMMIT\0', 'latin1');
/** Text only the statement that appends a batch's lines holds. */
const APPEND = Buffer.from('moved AS (UPDATE', 'utf8');

export interface FaultProxy {
  /** `url` with its host and port turned to the proxy's. */
  readonly url: string;
  /** The fault for the next COMMIT (once; then `pass` again); `thenDown`: after it, the database is out of reach (every new connection cut at once) until `up`. */
  onNextCommit(fault: CommitFault, thenDown?: boolean): void;
  /** The database in reach again. */
  up(): void;
  /** Freezes the next connection that sends a batch's lines, just after they went: nothing more passes either way, no side is closed, until `thaw`. */
  freezeNextAppend(): Promise<void>;
  /** Lets a frozen connection go on: what it held passes, then whatever came after. */
  thaw(): void;
  /** How many COMMITs each fault met so far. */
  readonly met: Readonly<Record<CommitFault, number>>;
  close(): Promise<void>;
}

/** A proxy for the database at `url` (a `postgres://…@127.0.0.1:PORT/…` URL). */
export async function faultProxy(url: string): Promise<FaultProxy> {
  const target = new URL(url);
  let nextCommit: CommitFault = 'pass';
  let downAfter = false;
  let down = false;
  const met: Record<CommitFault, number> = { pass: 0, 'cut-before': 0, 'cut-during': 0, 'cut-after': 0 };
  let freezeWanted: (() => void) | null = null;
  const frozen: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const pair = (client: Socket) => {
    if (down) return void client.destroy();
    const server = connect(Number(target.port), target.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    /** A cut a COMMIT met: the database goes out of reach with it, when asked. */
    const cutAtCommit = () => {
      if (downAfter) down = true;
      downAfter = false;
      cut();
    };
    client.on('close', cut);
    server.on('close', cut);
    let held: { toServer: Buffer[]; toClient: Buffer[]; serverEnded: boolean } | null = null;
    /** Called once after a COMMIT went: what the server answers next. */
    let onAnswer: (() => void) | null = null;

    server.on('data', (chunk: Buffer) => {
      if (held !== null) return void held.toClient.push(chunk);
      if (onAnswer !== null) {
        const answer = onAnswer;
        onAnswer = null;
        return answer();
      }
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      if (held !== null) return void held.toServer.push(chunk);
      if (chunk.includes(COMMIT)) {
        const fault = nextCommit;
        nextCommit = 'pass';
        met[fault]++;
        if (fault === 'cut-before') return cutAtCommit();
        server.write(chunk);
        if (fault === 'cut-during') return cutAtCommit();
        if (fault === 'cut-after') onAnswer = cutAtCommit;
        return;
      }
      server.write(chunk);
      if (freezeWanted !== null && chunk.includes(APPEND)) {
        const frozenNow = freezeWanted;
        freezeWanted = null;
        const hold = { toServer: [] as Buffer[], toClient: [] as Buffer[], serverEnded: false };
        held = hold;
        // While frozen, the server closing its side is held back too, as a dead network would.
        server.removeListener('close', cut);
        server.on('close', () => {
          hold.serverEnded = true;
        });
        frozen.push(() => {
          held = null;
          for (const bytes of hold.toClient) client.write(bytes);
          for (const bytes of hold.toServer) server.write(bytes);
          if (hold.serverEnded) client.end();
          else server.on('close', cut);
        });
        frozenNow();
      }
    });
  };

  const listener: Server = createServer(pair);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((listener.address() as AddressInfo).port);

  return {
    url: proxied.toString(),
    onNextCommit(fault, thenDown = false) {
      nextCommit = fault;
      downAfter = thenDown;
    },
    up() {
      down = false;
    },
    freezeNextAppend() {
      return new Promise((resolve) => {
        freezeWanted = resolve;
      });
    },
    thaw() {
      for (const go of frozen.splice(0)) go();
    },
    met,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => listener.close(() => resolve()));
    },
  };
}

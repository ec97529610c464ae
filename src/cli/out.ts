const { writeSync } = process.getBuiltinModule('node:fs');

/*
 * The bin's standard output and error. Written with writeSync while nothing
 * has asked for Node's stream of them: making a pipe's stream (a net.Socket)
 * loads and sets up the stream machinery, 5 to 6 ms of a `next` that answers
 * in 90. A descriptor that takes no more for now (EAGAIN: a non-blocking
 * pipe that is full) hands what is left, and everything after it, to the
 * stream, which waits for the reader; so does `watch`, which draws through
 * the stream (stdoutStream). A reader that went away (EPIPE, as under
 * `gapflow status | head -1`) gets nothing more, and the call runs to its
 * end (a write still rewrites status.md) and exits with its own code; a
 * stream's EPIPE, which comes once the call has answered (or to `watch`,
 * which would draw for no one), ends the process with that code.
 */

type Fd = 1 | 2;
const streams = new Map<Fd, NodeJS.WriteStream>();
/** The descriptors whose reader went away: what is written to them is dropped. */
const gone = new Set<Fd>();

function readerGone(): never {
  process.exit(process.exitCode ?? 0);
}

function streamOf(fd: Fd): NodeJS.WriteStream {
  let stream = streams.get(fd);
  if (stream === undefined) {
    stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') readerGone();
      throw error;
    });
    streams.set(fd, stream);
  }
  return stream;
}

/** Standard output as a stream, for a command that draws on it (a terminal's size, its resize events); later writes go through it too, in order. */
export function stdoutStream(): NodeJS.WriteStream {
  return streamOf(1);
}

/** Writes `data` whole to `fd`, now if it takes it, else through its stream. */
export function write(fd: Fd, data: string | Uint8Array): void {
  if (gone.has(fd)) return;
  const stream = streams.get(fd);
  if (stream !== undefined) {
    stream.write(data);
    return;
  }
  let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        gone.add(fd);
        return;
      }
      if (code !== 'EAGAIN') throw error;
      streamOf(fd).write(bytes);
      return;
    }
  }
}

/** Settles once every stream made here has handed over what was written to it (the synchronous writes are out already). */
export function flushed(): Promise<void> {
  const pending = [...streams.values()].filter((stream) => stream.writableLength > 0);
  return Promise.all(pending.map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve())))).then(() => undefined);
}

import type { Server } from 'node:http';
import { Refusal } from '../core/index.js';
import { wholeNumber } from './args.js';

/*
 * What `inspect`, `watch` and `serve` share to serve on loopback: the port option and
 * a listen that fails with one line. Loopback only: a session's gaps are not
 * for the network.
 */

export const LOOPBACK = '127.0.0.1';

/** `--port P`: a whole number from 1 to 65535; undefined when not given. */
export function portOption(value: string | undefined): number | undefined {
  const port = wholeNumber('port', value);
  // A value out of range is an invalid value (exit 1), as a port that is not a number is.
  if (port !== undefined && (port < 1 || port > 65535))
    throw new Refusal(`--port takes 1 to 65535, not ${port}`, undefined, { field: '--port', value: port, valid: null, suggestion: null });
  return port;
}

/** Listens on loopback (or `host`, for a caller that was told to); a busy port is one line that says what to do. */
export function listen(server: Server, port: number, host: string = LOOPBACK): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use; pick another with --port`) : error);
    });
    server.listen(port, host, () => resolve());
  });
}

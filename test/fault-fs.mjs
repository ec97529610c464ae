// A preload (`node --import <this file> dist/gapflow.cjs …`) that makes the disk fail where a test says, for
// the built bin run as a user runs it. What fails is read from $GAPFLOW_FAULTS, a JSON object:
//
//   log        a file path: the log whose fsync and ftruncate the next two keys fail
//   fsync      true: fsync of `log` fails with EIO while the log is longer than it was when this process started
//              (a write that is not made durable; once cut back to where it ended, fsync works again)
//   ftruncate  true: ftruncate of `log` fails with EIO
//   under      a path prefix (a folder, or a file and the temporary files named after it): writes to files
//              opened at paths that start with it share the budget below
//   spaceLeft  bytes the disk takes under `under` before ENOSPC (a write past it is cut short, the next refused)
//   trace      a file path: each fault injected is appended to it as a JSON line {syscall, stack}, so a test can
//              tell which code met it (the bin's short path lives in dist/head-answers.js)
//
// Node's own functions are patched and handed to ES module importers with syncBuiltinESMExports, so a
// bundle's `import { writeSync } from 'node:fs'` sees them too. Without $GAPFLOW_FAULTS nothing changes.
import { Buffer } from 'node:buffer';
import fs, { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';
import process from 'node:process';

const faults = process.env.GAPFLOW_FAULTS ? JSON.parse(process.env.GAPFLOW_FAULTS) : null;

if (faults !== null) {
  const original = { openSync: fs.openSync, closeSync: fs.closeSync, writeSync: fs.writeSync, fsyncSync: fs.fsyncSync, ftruncateSync: fs.ftruncateSync };
  const log = faults.log === undefined ? null : resolve(faults.log);
  const under = faults.under === undefined ? null : resolve(faults.under);
  let spaceLeft = faults.spaceLeft ?? Infinity;
  const logSizeAtStart = log === null ? 0 : sizeOf(log);
  /** The path each open file descriptor was opened with (the ones that matter here). */
  const paths = new Map();

  const failure = (code, errno, syscall, text) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 50;
    const error = Object.assign(new Error(`${code}: ${text}, ${syscall}`), { code, errno, syscall });
    Error.stackTraceLimit = limit;
    if (faults.trace !== undefined) appendFileSync(faults.trace, `${JSON.stringify({ syscall, stack: error.stack })}\n`);
    return error;
  };
  const isLog = (fd) => log !== null && paths.get(fd) === log;
  const isUnder = (fd) => under !== null && (paths.get(fd) ?? '').startsWith(under);

  fs.openSync = function openSync(path, ...rest) {
    const fd = original.openSync.call(fs, path, ...rest);
    if (typeof path === 'string') paths.set(fd, resolve(path));
    return fd;
  };
  fs.closeSync = function closeSync(fd) {
    paths.delete(fd);
    return original.closeSync.call(fs, fd);
  };
  fs.fsyncSync = function fsyncSync(fd) {
    if (faults.fsync && isLog(fd) && fs.fstatSync(fd).size > logSizeAtStart) throw failure('EIO', -5, 'fsync', 'i/o error');
    return original.fsyncSync.call(fs, fd);
  };
  fs.ftruncateSync = function ftruncateSync(fd, ...rest) {
    if (faults.ftruncate && isLog(fd)) throw failure('EIO', -5, 'ftruncate', 'i/o error');
    return original.ftruncateSync.call(fs, fd, ...rest);
  };
  fs.writeSync = function writeSync(fd, data, ...rest) {
    if (!isUnder(fd) || spaceLeft === Infinity) return original.writeSync.call(fs, fd, data, ...rest);
    // The bytes asked for, as a Buffer, whichever way writeSync was called (a buffer with offset and length, or a string).
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data, rest[1] ?? 'utf8')
        : Buffer.from(data.buffer, data.byteOffset + (rest[0] ?? 0), rest[1] ?? data.byteLength - (rest[0] ?? 0));
    const position = typeof data === 'string' ? rest[0] : rest[2];
    if (bytes.length > 0 && spaceLeft === 0) throw failure('ENOSPC', -28, 'write', 'no space left on device');
    const taken = Math.min(bytes.length, spaceLeft);
    const written = original.writeSync.call(fs, fd, bytes, 0, taken, position ?? null);
    spaceLeft -= written;
    return written;
  };
  syncBuiltinESMExports();
}

function sizeOf(path) {
  try {
    return fs.statSync(path).size;
  } catch {
    return 0;
  }
}

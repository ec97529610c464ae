import type { Stats } from 'node:fs';

const { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } =
  process.getBuiltinModule('node:fs');
// The bin's launcher (cli/launch.ts) holds this module whatever it is asked: the rest of Node it takes only for a write.
const sha256 = () => process.getBuiltinModule('node:crypto').createHash('sha256');
const { basename, dirname, isAbsolute, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/*
 * V8's code cache for the bin's write bundle. Compiling the bundle was most
 * of what a `gap open` cost over a bare node (about 20 ms of 300 KB, every
 * call); V8 can hand back, instead, the code it compiled on an earlier call,
 * functions run included. Node 22 keeps such a cache itself
 * (module.enableCompileCache); on Node 20 a script is compiled with
 * `cachedData` by hand, which only a CommonJS script can take.
 *
 * The cache is kept where only its user can write: a folder of the user's
 * own, mode 0700 (not a link, no one else may write it), each file 0600 and
 * the user's. V8 takes a cache it was handed on trust (a damaged one ends
 * the process in its deserializer), so each file begins with the SHA-256 of
 * what follows and is used only when they agree; the file's name carries a
 * hash of the bundle's text and of the Node that compiled it, since V8 tells
 * one source from another by its length alone. Anything amiss (no folder, a
 * foreign or damaged file, a full disk) costs the call the compile and
 * nothing else: the cache is written only by a call that exits 0, at exit,
 * under a temporary name renamed into place.
 */

/** `$GAPFLOW_CODE_CACHE`: a folder to keep the cache in, or `off`. */
export const CODE_CACHE_ENV = 'GAPFLOW_CODE_CACHE';
/** A cache file larger than this is not read (the bundle's cache is about 0.4 MiB). */
const CACHE_FILE_LIMIT = 64 * 1024 * 1024;
const DIGEST_BYTES = 32;
/** Another build's cache no call has written for this long is removed when a cache is written. */
const STALE_AFTER_DAYS = 30;

/** The folder the cache is kept in: `$GAPFLOW_CODE_CACHE`, else the user's cache folder's `gapflow`; null for `off` or a relative path. */
export function codeCacheFolder(env: Record<string, string | undefined> = process.env): string | null {
  const named = env[CODE_CACHE_ENV];
  if (named !== undefined && named !== '') return named === 'off' || !isAbsolute(named) ? null : named;
  if (process.platform === 'win32') return env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA) ? join(env.LOCALAPPDATA, 'gapflow', 'code-cache') : null;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'gapflow', 'code-cache');
  try {
    const home = process.getBuiltinModule('node:os').homedir();
    return isAbsolute(home) ? join(home, '.cache', 'gapflow', 'code-cache') : null;
  } catch {
    return null; // no home to keep it in (a user with no passwd entry)
  }
}

/** Whether `stats` are the user's own and no one else may write them. */
function ownOnly(stats: Stats): boolean {
  if (process.platform === 'win32') return true;
  return stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}

/** Whether `folder` is a real folder only its user can write; with `make`, made (0700) when missing. */
function trusted(folder: string, make: boolean): boolean {
  try {
    if (make) mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stats = lstatSync(folder);
    return stats.isDirectory() && ownOnly(stats);
  } catch {
    return false;
  }
}

/** The cache a file holds, when it is a regular file of the user's whose digest agrees; else undefined. */
function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(fd);
    if (!stats.isFile() || !ownOnly(stats) || stats.size <= DIGEST_BYTES || stats.size > CACHE_FILE_LIMIT) return undefined;
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, read);
      if (got === 0) return undefined;
      read += got;
    }
    const data = bytes.subarray(DIGEST_BYTES);
    return sha256().update(data).digest().equals(bytes.subarray(0, DIGEST_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `data` under its digest as `file`, and removes the caches of other
 * builds of the bundle no call has written for `STALE_AFTER_DAYS` (two
 * installs used by turns, a global one and a project's, each keep theirs).
 */
function writeCache(folder: string, file: string, prefix: string, data: Buffer): void {
  const temporary = join(folder, `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, Buffer.concat([sha256().update(data).digest(), data]), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
    const stale = Date.now() - STALE_AFTER_DAYS * 86_400_000;
    for (const name of readdirSync(folder)) {
      const other = join(folder, name);
      if (name.startsWith(prefix) && name.endsWith('.v8') && other !== file && lstatSync(other).mtimeMs < stale) rmSync(other, { force: true });
    }
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * A bundle's cache name: its bytes, where it lies, and the Node that compiles
 * them. V8 tells sources apart by length alone, and the compiled code keeps
 * the file name it was compiled under: a copy of the same bytes elsewhere
 * would report its errors as the other copy's.
 */
function cacheKey(bytes: Buffer, path: string): string {
  return sha256().update(`${process.version}\0${process.arch}\0${path}\0`).update(bytes).digest('hex').slice(0, 32);
}

/**
 * Runs the CommonJS bundle at `bundle` as `require` would and returns its
 * exports, compiled from the code cache when there is a good one (see
 * above); a call that compiled it afresh and exits 0 keeps what it compiled.
 */
export function requireCached(bundle: URL, env: Record<string, string | undefined> = process.env): unknown {
  const path = fileURLToPath(bundle);
  const bytes = readFileSync(path);
  const source = bytes.toString('utf8');
  const prefix = `${basename(path).replace(/\.c?js$/, '')}-`;
  const folder = codeCacheFolder(env);
  const cache = folder === null ? null : { folder, file: join(folder, `${prefix}${cacheKey(bytes, path)}.v8`) };
  const cachedData = cache !== null && trusted(cache.folder, false) ? readCache(cache.file) : undefined;
  // The bundle's `import.meta.url` is built as `importMetaUrl` (package.json's build), handed in here.
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, importMetaUrl) {${source}\n})`, {
    filename: path,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  type Wrapper = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, importMetaUrl: string) => void;
  const run = script.runInThisContext() as Wrapper;
  const module = { exports: {} };
  run.call(module.exports, module.exports, process.getBuiltinModule('node:module').createRequire(path), module, path, dirname(path), bundle.href);
  if (cache !== null && (cachedData === undefined || script.cachedDataRejected === true)) {
    process.once('exit', (code) => {
      if (code === 0 && trusted(cache.folder, true)) writeCache(cache.folder, cache.file, prefix, script.createCachedData());
    });
  }
  return module.exports;
}

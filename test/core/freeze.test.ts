import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeView, encodeView } from '../../src/core/index.js';
import { deepFreeze, freezeNew } from '../../src/core/index.js';
import { openFileSession } from '../../src/index.js';

/*
 * Views are frozen through: a caller holding one cannot change the session
 * (or the checkpoint written from it) behind its back. `freezeNew` freezes a
 * tree built just now without asking each part first; it must leave nothing
 * a caller could write to, as `deepFreeze` does.
 */

const GAP_MOVES = fileURLToPath(new URL('../fixtures/old-logs/v5/gap-moves', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every object, array and Map in `value` that a caller could still change, by path. */
function writable(value: unknown, path = 'view', out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out;
  if (!Object.isFrozen(value)) out.push(path);
  if (value instanceof Map) {
    if (!throwsOnWrite(value)) out.push(`${path} (a Map that takes writes)`);
    for (const [key, item] of value) writable(item, `${path}.get(${String(key)})`, out);
  } else {
    for (const [key, item] of Object.entries(value)) writable(item, `${path}.${key}`, out);
  }
  return out;
}

function throwsOnWrite(map: Map<unknown, unknown>): boolean {
  const writes = [() => map.set('x', 1), () => map.delete('x'), () => map.clear()];
  return writes.every((write) => {
    try {
      write();
      return false;
    } catch {
      return true;
    }
  });
}

function replayed() {
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-freeze-'));
  dirs.push(dir);
  cpSync(GAP_MOVES, dir, { recursive: true });
  rmSync(join(dir, 'checkpoint.json'), { force: true });
  return openFileSession(dir).view;
}

describe('frozen views', () => {
  it('a replayed view is frozen through, its Maps refusing writes', () => {
    const view = replayed();
    expect(view.gaps.size).toBeGreaterThan(0);
    expect(writable(view)).toEqual([]);
  });

  it('a view decoded from a checkpoint is frozen through', () => {
    const view = decodeView(encodeView(replayed()));
    expect(view).not.toBeNull();
    expect(writable(view)).toEqual([]);
  });

  it('freezeNew freezes what deepFreeze freezes, and a Map frozen already is left as it is', () => {
    const shared = deepFreeze(new Map([['a', { n: 1 }]]));
    const tree = { list: [{ a: [1, { b: 2 }] }], map: new Map([['k', { c: [3] }]]), shared, twice: shared };
    freezeNew(tree);
    expect(writable(tree)).toEqual([]);
    expect(freezeNew(7)).toBe(7);
  });
});

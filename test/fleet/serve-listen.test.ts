import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileSession } from '../../src/index.js';
import { childKeeper, freePort, until } from '../cli/children.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * `gapflow serve` from the bin, bound to loopback however `--host` spells
 * it, called as a rebinding page (another name for this machine), as a page
 * from another origin, and as its own page and a script: only the last two
 * are shown the sessions.
 */

const tempDir = tempDirs('gapflow-serve-listen-');
const spawnBin = childKeeper();

interface Answer {
  status: number;
  body: string;
}

/** A GET by node's own client, which sends the Host it is given (fetch sends its own); the body read for up to a second (a live feed never ends). */
function get(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      const done = () => {
        req.destroy();
        resolve({ status: res.statusCode!, body });
      };
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', done);
      setTimeout(done, 1_000);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gapflow serve on loopback', () => {
  for (const host of ['127.0.0.1', 'localhost', '::1']) {
    it(`--host ${host}: a foreign Host or Origin gets no session, a loopback name and its own page do`, async () => {
      const root = tempDir();
      createFileSession(join(root, 'secret-project', '.gapflow'), {}, fixedStamps()).openGap('A', 'HIGH', { title: 'the-secret-title' });
      const port = await freePort();
      const run = spawnBin(['serve', '--port', String(port), '--host', host, root], root);
      await until('the URL', () => run.stdout().includes('\n'), 15_000);
      const base = run.stdout().split('\n')[0]!.replace(/\/$/, '');

      for (const path of ['/', '/api/sessions', '/api/sessions/secret-project', '/events', '/metrics']) {
        for (const [headers, status] of [
          [{ Host: `rebound.example:${port}` }, 421],
          [{ Host: 'rebound.example' }, 421],
          [{ Origin: 'http://evil.example' }, 403],
          [{ Origin: 'http://127.0.0.1:1' }, 403],
        ] as const) {
          const answer = await get(`${base}${path}`, headers);
          expect([path, headers, answer.status]).toEqual([path, headers, status]);
          expect(answer.body).not.toContain('secret');
        }
      }
      const own: Record<string, string>[] = [
        {},
        { Host: `localhost:${port}` },
        { Host: `127.0.0.1:${port}`, Origin: `http://127.0.0.1:${port}` },
        { Host: `[::1]:${port}`, Origin: `http://[::1]:${port}` },
      ];
      for (const headers of own) {
        const answer = await get(`${base}/api/sessions`, headers);
        expect([headers, answer.status]).toEqual([headers, 200]);
        expect(answer.body).toContain('secret-project');
      }
      // On loopback there is nothing to warn of.
      expect(run.stderr()).toBe('');
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    }, 30_000);
  }
});

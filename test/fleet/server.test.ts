import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardServer, Fleet, folderSource, type Dashboard, type FleetRow, type SessionDetail } from '../../src/fleet/index.js';
import { createFileSession, openFileSession } from '../../src/index.js';
import { until } from '../cli/children.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * The dashboard's HTTP endpoints, served in-process over a fleet of real
 * session folders, called as a browser or a scraper calls them.
 */

const tempDir = tempDirs('gapflow-serve-');
const open: { dashboard: Dashboard; fleet: Fleet }[] = [];
afterEach(async () => {
  for (const { dashboard, fleet } of open.splice(0)) {
    await dashboard.close();
    fleet.stop();
  }
});

async function serving(root: string): Promise<string> {
  const fleet = new Fleet(folderSource(root, { rescanMs: 100, followMs: 50 }), { settleMs: 10 });
  const dashboard = await dashboardServer(fleet);
  open.push({ dashboard, fleet });
  await new Promise<void>((resolve) => dashboard.server.listen(0, '127.0.0.1', resolve));
  fleet.watch();
  return `http://127.0.0.1:${(dashboard.server.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  type: string;
  body: string;
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Two sessions: `web/app` with a round closed (weighted 8 → 4), and `docs` with a title that is markup. */
function fleetFolder(): { root: string; app: string } {
  const root = tempDir();
  const app = join(root, 'web', 'app', '.gapflow');
  const s = createFileSession(app, {}, fixedStamps());
  s.openGap('A', 'HIGH');
  s.openGap('B', 'HIGH');
  s.startRound();
  s.moveGap('A', 'RESOLVED');
  s.closeRound();
  createFileSession(join(root, 'docs', '.gapflow'), {}, fixedStamps()).openGap('D', 'LOW', { title: '<script>alert(1)</script>' });
  return { root, app };
}

describe('the dashboard server', () => {
  it('/api/sessions lists every row, as fleet --json does', async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    const answer = await get(`${base}/api/sessions`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json; charset=utf-8');
    const { sessions } = JSON.parse(answer.body) as { sessions: FleetRow[] };
    expect(sessions.map((row) => [row.name, row.state, row.round, row.open, row.weightedOpen])).toEqual([
      ['docs', 'CONVERGING', 0, 1, 1],
      ['web/app', 'CONVERGING', 1, 1, 4],
    ]);
  });

  it('/api/sessions/<name> gives a session (its name URL-encoded) with its chart and status.md; an unknown name is 404', async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    const answer = await get(`${base}/api/sessions/${encodeURIComponent('web/app')}`);
    expect(answer.status).toBe(200);
    const detail = JSON.parse(answer.body) as SessionDetail;
    expect(detail.row.name).toBe('web/app');
    expect(detail.chart).toEqual([
      { round: 0, weightedOpen: 8 },
      { round: 1, weightedOpen: 4 },
    ]);
    expect(detail.status).toMatch(/^# gapflow status\n/);
    expect((await get(`${base}/api/sessions/nobody`)).status).toBe(404);
    expect((await get(`${base}/api/sessions/%E0%A4%A`)).status).toBe(400);
  });

  it('serves the page with the folder in its title escaped, and under a policy that runs no script from elsewhere', async () => {
    const root = join(tempDir(), '<b>&"x"');
    mkdirSync(root);
    const base = await serving(root);
    const page = await new Promise<{ body: string; policy: string }>((resolve) => {
      request(`${base}/`, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += String(chunk)));
        res.on('end', () => resolve({ body, policy: String(res.headers['content-security-policy']) }));
      }).end();
    });
    expect(page.body).toContain('<title>gapflow fleet: ');
    expect(page.body).toContain('&lt;b&gt;&amp;&quot;x&quot;');
    expect(page.body).not.toContain('<b>&"x"');
    expect(page.policy).toContain("default-src 'none'");
    expect(page.policy).toContain("connect-src 'self'");
  });

  it('/metrics answers in the Prometheus text format 0.0.4', async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    const answer = await get(`${base}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.body).toMatch(/^gapflow_sessions\{state="CONVERGING"\} 2$/m);
    expect(answer.body).toMatch(/^gapflow_rounds_closed_total\{session="web\/app"\} 1$/m);
  });

  it('/events sends the rows on connecting, then a session another writer changed, without being asked', { timeout: 30_000 }, async () => {
    const { root, app } = fleetFolder();
    const base = await serving(root);
    let stream = '';
    const req = request(`${base}/events`);
    const type = await new Promise<string>((resolve) => {
      req.on('response', (res) => {
        res.on('data', (chunk: Buffer) => (stream += String(chunk)));
        resolve(String(res.headers['content-type']));
      });
      req.end();
    });
    try {
      expect(type).toBe('text/event-stream; charset=utf-8');
      await until('the snapshot', () => stream.includes('event: snapshot\n'), 5_000);
      openFileSession(app).openGap('LATE', 'CRITICAL');
      await until('the change', () => stream.includes('event: change\n'), 5_000);
      const data = stream.slice(stream.indexOf('event: change\n')).split('\n')[1]!;
      expect(data.startsWith('data: ')).toBe(true);
      const change = JSON.parse(data.slice('data: '.length)) as { rows: FleetRow[]; removed: string[] };
      expect(change.removed).toEqual([]);
      expect(change.rows).toEqual([expect.objectContaining({ name: 'web/app', open: 2, weightedOpen: 20, roundOpen: true })]);
    } finally {
      req.destroy();
    }
  });

  it('on loopback, refuses a request naming another Host (421) or sent by a page from another origin (403), with nothing of the sessions', async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    const port = new URL(base).port;
    const foreign: Record<string, string>[] = [
      { Host: `evil.example:${port}` },
      { Origin: 'http://evil.example' },
      { Origin: 'http://127.0.0.1:1' },
      { Origin: 'null' },
    ];
    for (const headers of foreign) {
      for (const path of ['/', '/api/sessions', '/events', '/metrics']) {
        const answer = await get(`${base}${path}`, headers);
        expect([path, headers, answer.status]).toEqual([path, headers, 'Host' in headers ? 421 : 403]);
        expect(answer.body).not.toContain('web/app');
        expect(answer.type).toBe('text/plain; charset=utf-8');
      }
    }
    // Its own page (Origin its own address, by any loopback name), and a client that sends no Origin, are answered.
    const own: Record<string, string>[] = [{}, { Origin: base }, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` }, { Host: `[::1]:${port}` }];
    for (const headers of own) {
      const answer = await get(`${base}/api/sessions`, headers);
      expect([headers, answer.status]).toEqual([headers, 200]);
      expect(answer.body).toContain('web/app');
    }
  });

  it("the page runs only its own server's script: no inline script in the page or 'unsafe-inline' in its policy, and no other site may frame it", async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    const page = await new Promise<{ body: string; policy: string; frames: string }>((resolve) => {
      request(`${base}/`, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += String(chunk)));
        res.on('end', () => resolve({ body, policy: String(res.headers['content-security-policy']), frames: String(res.headers['x-frame-options']) }));
      }).end();
    });
    const policy = new Map(
      page.policy.split(';').map((directive) => {
        const [name, ...values] = directive.trim().split(/\s+/);
        return [name!, values];
      }),
    );
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(page.policy).not.toContain('unsafe-inline');
    expect(page.frames).toBe('DENY');
    // The only <script> with a body is data (application/json), which no browser runs.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => [m[1]!.trim(), m[2]!.length > 0]);
    expect(scripts).toEqual([
      ['type="application/json" id="states"', true],
      ['src="dashboard.js"', false],
    ]);
    const script = await get(`${base}/dashboard.js`);
    expect([script.status, script.type]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(script.body).toContain("new EventSource('events')");
    const style = await get(`${base}/dashboard.css`);
    expect([style.status, style.type]).toEqual([200, 'text/css; charset=utf-8']);
  });

  it('takes GET and HEAD only, and answers 404 elsewhere', async () => {
    const { root } = fleetFolder();
    const base = await serving(root);
    expect((await get(`${base}/api/sessions`, {}, 'POST')).status).toBe(405);
    const head = await get(`${base}/metrics`, {}, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    expect((await get(`${base}/nothing`)).status).toBe(404);
  });
});

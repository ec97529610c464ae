import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BIN, childKeeper, freePort, until, type Running } from '../cli/children.js';
import { postgresServer } from '../postgres.js';

/*
 * The dashboard in a real headless Chromium (@sparticuz/chromium, driven by
 * playwright-core): sessions made by the bin, `gapflow serve` in its own
 * process, and an event appended by yet another process showing on the
 * page without a reload. Every browser test lives in this one file: the
 * browser unpacks itself once, and two unpacks at a time could race.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCREENSHOT = join(ROOT, 'test-results', 'dashboard.png');
const DATABASE_SCREENSHOT = join(ROOT, 'test-results', 'dashboard-postgres.png');
const CHROMIUM_VERSION = '147';

// The server stays up across this file's tests; killed after them all, whatever happens.
const spawned = childKeeper(afterAll);
let root: string;
let server: Running;
let browser: Browser | null = null;
let page: Page;
/** Every alert, confirm or prompt the page raised: a name run as markup would raise one. */
const dialogs: string[] = [];
/** What the browser refused under the page's content security policy: its own script and style must not be among it. */
const refusedByPolicy: string[] = [];
/** The page's Content-Security-Policy, as the browser got it. */
let pagePolicy = '';

/** `gapflow <line> --dir <root>/<at>/.gapflow`, in its own process, as another writer would. */
function gf(at: string, line: string): void {
  execFileSync('node', [BIN, ...line.split(' '), '--dir', join(root, at, '.gapflow')], { cwd: root, stdio: 'pipe', timeout: 20_000 });
}

async function launch(): Promise<Browser> {
  // executablePath() unpacks into os.tmpdir()/chromium without checking the version there: a private, versioned folder.
  const unpackTo = join(tmpdir(), `gapflow-chromium-${CHROMIUM_VERSION}`);
  mkdirSync(unpackTo, { recursive: true });
  process.env.TMPDIR = unpackTo;
  const [{ chromium }, { default: sparticuz }] = await Promise.all([import('playwright-core'), import('@sparticuz/chromium')]);
  return chromium.launch({
    executablePath: await sparticuz.executablePath(),
    headless: true,
    timeout: 60_000,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The table as the user sees it: each visible row's name and state. */
async function visibleRows(): Promise<string[][]> {
  return page.$$eval('#sessions tbody tr', (rows) =>
    rows.filter((row) => !row.hasAttribute('hidden')).map((row) => [row.getAttribute('data-name')!, row.getAttribute('data-state')!]),
  );
}

beforeAll(async () => {
  const tmp = process.env.TMPDIR;
  root = mkdtempSync(join(tmpdir(), 'gapflow-dashboard-'));
  // Four sessions in three states, one with a name that is markup.
  for (const line of [
    'init',
    'gap open A --severity HIGH',
    'gap open B --severity HIGH',
    'gap open C --severity MEDIUM',
    'round start',
    'gap move A RESOLVED',
    'round close',
    'round start',
    'gap move B RESOLVED',
    'round close',
  ])
    gf('alpha', line);
  for (const line of ['init', 'gap open X --severity LOW', 'round start', 'gap open Y --severity CRITICAL', 'round close']) gf('team/beta', line);
  for (const line of ['init', 'gap open Z --severity LOW', 'round start', 'gap move Z RESOLVED', 'round close']) gf('gamma', line);
  for (const line of ['init', 'gap open Q --severity LOW']) gf('<img src=x onerror=alert(1)>', line);

  const port = await freePort();
  server = spawned(['serve', '--port', String(port), root], root);
  await until('the URL on stdout', () => server.stdout().includes('\n'), 20_000);
  const url = server.stdout().split('\n')[0]!;
  expect(url).toBe(`http://127.0.0.1:${port}/`);

  browser = await launch();
  if (tmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmp;
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) refusedByPolicy.push(message.text());
  });
  pagePolicy = (await page.goto(url, { timeout: 20_000 }))!.headers()['content-security-policy'] ?? '';
  await page.waitForSelector('#live[data-state="live"]', { timeout: 15_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGINT');
    await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  rmSync(root, { recursive: true, force: true });
}, 30_000);

describe('the dashboard, in a headless browser', () => {
  it('lists every session with its state, a markup name shown as text', async () => {
    expect(await visibleRows()).toEqual([
      ['<img src=x onerror=alert(1)>', 'CONVERGING'],
      ['alpha', 'CONVERGING'],
      ['gamma', 'COMPLETE'],
      ['team/beta', 'DIVERGENCE_WARNING'],
    ]);
    expect(await page.$$('#sessions img')).toHaveLength(0);
    expect(dialogs).toEqual([]);
    const alpha = page.locator('#sessions tbody tr[data-name="alpha"]');
    expect(await alpha.locator('td.round').textContent()).toBe('2');
    expect(await alpha.locator('td.open').textContent()).toBe('1');
    expect(await alpha.locator('td.weighted').textContent()).toBe('2');
  }, 30_000);

  it('filters the rows by state, and shows them all again', async () => {
    await page.click('#filters button[data-filter="CONVERGING"]', { timeout: 10_000 });
    expect(await visibleRows()).toEqual([
      ['<img src=x onerror=alert(1)>', 'CONVERGING'],
      ['alpha', 'CONVERGING'],
    ]);
    await page.click('#filters button[data-filter="DIVERGENCE_WARNING"]', { timeout: 10_000 });
    expect(await visibleRows()).toEqual([['team/beta', 'DIVERGENCE_WARNING']]);
    await page.click('#filters button[data-filter="ALL"]', { timeout: 10_000 });
    expect(await visibleRows()).toHaveLength(4);
  }, 30_000);

  it('opens a session: an SVG line through its weighted open count at each round, and its status.md', async () => {
    await page.click('#sessions tbody tr[data-name="alpha"]', { timeout: 10_000 });
    await page.waitForSelector('#chart svg path.line', { timeout: 15_000 });
    // alpha: 4 + 4 + 2 = 10 at the start, 6 after round 1, 2 after round 2.
    const points = await page.$$eval('#chart svg circle.point', (dots) =>
      dots.map((dot) => [Number(dot.getAttribute('data-round')), Number(dot.getAttribute('data-value'))]),
    );
    expect(points).toEqual([
      [0, 10],
      [1, 6],
      [2, 2],
    ]);
    const d = (await page.getAttribute('#chart svg path.line', 'd', { timeout: 10_000 }))!;
    expect(d.match(/[ML]/g)).toEqual(['M', 'L', 'L']);
    // Higher counts are drawn higher: y falls as the count rises.
    const ys = [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => Number(m[2]));
    expect(ys[0]!).toBeLessThan(ys[1]!);
    expect(ys[1]!).toBeLessThan(ys[2]!);
    expect(await page.textContent('#status', { timeout: 10_000 })).toMatch(/^# gapflow status\n/);
    expect(await page.textContent('#detail-name', { timeout: 10_000 })).toBe('alpha');
  }, 30_000);

  it('shows an event another process appends, without a reload, and saves a screenshot', async () => {
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    // Set on this page's window: a reload would lose it.
    await page.evaluate('window.marker = "still the same page"');
    gf('alpha', 'gap open LATE --severity CRITICAL --title Found-late');
    const alphaOpen = page.locator('#sessions tbody tr[data-name="alpha"] td.open');
    // Waited for in the page by Playwright's own selectors: the page's policy runs no code from a string.
    await page.locator('#sessions tbody tr[data-name="alpha"] td.open', { hasText: /^2$/ }).waitFor({ timeout: 15_000 });
    expect(await alphaOpen.textContent()).toBe('2');
    expect(await page.locator('#sessions tbody tr[data-name="alpha"] td.weighted').textContent()).toBe('18');
    // The open session's status.md followed too.
    await page.locator('#status', { hasText: 'LATE' }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.marker')).toBe('still the same page');
    expect(navigations).toEqual([]);
    // All of it ran under a policy that runs no inline script, and refused none of the page's own.
    expect(pagePolicy).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(pagePolicy).toContain("frame-ancestors 'none'");
    expect(refusedByPolicy).toEqual([]);

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true, timeout: 20_000 });
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.length).toBeGreaterThan(10_000);
  }, 60_000);
});

describe('a stale row on the dashboard, in a headless browser', () => {
  it('is marked stale with its age and why, its last figures kept, every text from it shown as text', async () => {
    const tab = await browser!.newPage({ viewport: { width: 1280, height: 500 } });
    tab.setDefaultTimeout(15_000);
    const tabDialogs: string[] = [];
    tab.on('dialog', (dialog) => {
      tabDialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      // The feed the page reads, as a server whose read of a session failed 42 s ago would send it: its last good figures, stale.
      const row = {
        name: '<b>idle</b>',
        state: 'PAUSED',
        outcome: null,
        round: 3,
        roundOpen: false,
        open: 4,
        weightedOpen: 9,
        lastReason: 'paused by the user',
        forecast: null,
        warnings: 0,
        eventCount: 20,
        lastEventAt: new Date(Date.now() - 3_600_000).toISOString(),
        age: 3600,
        error: null,
        stale: true,
        staleSince: new Date(Date.now() - 42_000).toISOString(),
        staleForSeconds: 42,
        staleReason: '<img src=x onerror=alert(1)> Connection terminated unexpectedly',
      };
      await tab.route('**/events', (route) =>
        route.fulfill({
          status: 200,
          headers: { 'Content-Type': 'text/event-stream' },
          body: `retry: 60000\nevent: snapshot\ndata: ${JSON.stringify({ sessions: [row] })}\n\n`,
        }),
      );
      await tab.goto(server.stdout().split('\n')[0]!, { timeout: 20_000 });
      const tr = tab.locator('#sessions tbody tr[data-name="<b>idle</b>"]');
      await tr.waitFor({ timeout: 15_000 });
      expect(await tr.getAttribute('data-state')).toBe('PAUSED');
      expect(await tr.getAttribute('data-stale')).toBe('true');
      expect(await tr.locator('.badge.PAUSED').textContent()).toBe('PAUSED');
      expect(await tr.locator('.badge.stale').textContent()).toMatch(/^stale 4\ds$/);
      expect(await tr.locator('.badge.stale').getAttribute('title')).toBe(
        'shown as last read; reading it again failed: <img src=x onerror=alert(1)> Connection terminated unexpectedly',
      );
      expect([await tr.locator('td.open').textContent(), await tr.locator('td.weighted').textContent(), await tr.locator('td.reason').textContent()]).toEqual([
        '4',
        '9',
        'paused by the user',
      ]);
      expect(await tab.$$('#sessions img, #sessions b')).toHaveLength(0);
      expect(tabDialogs).toEqual([]);
    } finally {
      await tab.close();
    }
  }, 60_000);
});

describe('the dashboard of a PostgreSQL store, in a headless browser', () => {
  const databaseUrl = postgresServer();
  let served: Running;
  let tab: Page;

  /** `gapflow <line> --store <database> --session <session>`, in its own process, as a writer on another machine would. */
  const db = (session: string, line: string) =>
    execFileSync('node', [BIN, ...line.split(' '), '--store', databaseUrl(), '--session', session], { cwd: root, stdio: 'pipe', timeout: 20_000 });

  beforeAll(async () => {
    for (const line of ['init', 'gap open A --severity HIGH', 'gap open B --severity LOW', 'round start', 'gap move A RESOLVED', 'round close'])
      db('ci/payments', line);
    for (const line of ['init', 'gap open X --severity MEDIUM', 'round start', 'gap open Y --severity CRITICAL', 'round close']) db('ci/search', line);
    const port = await freePort();
    served = spawned(['serve', '--port', String(port), '--store', databaseUrl()], root);
    await until('the URL on stdout', () => served.stdout().includes('\n'), 20_000);
    tab = await browser!.newPage({ viewport: { width: 1280, height: 700 } });
    tab.setDefaultTimeout(15_000);
    await tab.goto(served.stdout().split('\n')[0]!, { timeout: 20_000 });
    await tab.waitForSelector('#live[data-state="live"]', { timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await tab?.close();
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGINT');
      await Promise.race([served.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
  }, 30_000);

  it('lists the sessions in the database, and shows what another process commits without a reload', async () => {
    const rows = () =>
      tab.$$eval('#sessions tbody tr', (trs) =>
        trs.filter((tr) => !tr.hasAttribute('hidden')).map((tr) => [tr.getAttribute('data-name')!, tr.getAttribute('data-state')!]),
      );
    expect(await rows()).toEqual([
      ['ci/payments', 'CONVERGING'],
      ['ci/search', 'DIVERGENCE_WARNING'],
    ]);
    // ci/payments: LOW (1) left open after round 1.
    const open = tab.locator('#sessions tbody tr[data-name="ci/payments"] td.weighted');
    expect(await open.textContent()).toBe('1');
    await tab.evaluate('window.marker = "still the same page"');
    db('ci/payments', 'gap open LATE --severity HIGH');
    // 1 + 4: the HIGH gap another process opened, heard through the database's commit notice.
    await tab.locator('#sessions tbody tr[data-name="ci/payments"] td.weighted', { hasText: /^5$/ }).waitFor({ timeout: 15_000 });
    // A session made meanwhile appears too.
    db('ci/docs', 'init');
    await tab.locator('#sessions tbody tr[data-name="ci/docs"]').waitFor({ timeout: 15_000 });
    expect(await tab.evaluate('window.marker')).toBe('still the same page');

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await tab.screenshot({ path: DATABASE_SCREENSHOT, fullPage: true, timeout: 20_000 });
    expect(readFileSync(DATABASE_SCREENSHOT).subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  }, 60_000);
});

describe('the listeners, from a page on another origin, in a headless browser', () => {
  let watching: Running;
  let feedPort: number;
  let elsewhere: Server;
  let elsewhereUrl: string;
  let tab: Page;

  /** What the page's WebSocket to the feed saw, kept on its window. */
  const attempt = (port: number) => `
    window.seen = { opened: false, messages: [], closed: null };
    const socket = new WebSocket('ws://127.0.0.1:${port}');
    socket.onopen = () => { window.seen.opened = true; };
    socket.onmessage = (e) => { window.seen.messages.push(e.data); };
    socket.onclose = (e) => { window.seen.closed = e.code; };
  `;

  beforeAll(async () => {
    feedPort = await freePort();
    watching = spawned(['watch', '--json', '--port', String(feedPort), '--dir', join(root, 'alpha', '.gapflow')], root);
    await until('the first state line', () => watching.stdout().includes('\n'), 20_000);
    // Another site, as far as the browser knows: the same machine, another port, so another origin.
    const dashboard = server.stdout().split('\n')[0]!;
    elsewhere = createServer((_, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!DOCTYPE html><title>elsewhere</title><iframe id="framed" src="${dashboard}"></iframe><script>${attempt(feedPort)}</script>`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`;
    tab = await browser!.newPage();
    tab.setDefaultTimeout(15_000);
  }, 60_000);

  afterAll(async () => {
    await tab?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
    if (watching && watching.child.exitCode === null) {
      watching.child.kill('SIGINT');
      await Promise.race([watching.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
  }, 30_000);

  it("a page from another origin opening new WebSocket('ws://127.0.0.1:P') against watch --port is closed without a message", async () => {
    await tab.goto(elsewhereUrl, { timeout: 20_000 });
    await tab.waitForFunction('window.seen && window.seen.closed !== null', undefined, { timeout: 15_000 });
    const seen = (await tab.evaluate('window.seen')) as { opened: boolean; messages: string[]; closed: number };
    expect(seen).toEqual({ opened: false, messages: [], closed: 1006 });
  }, 30_000);

  it("the same script on the feed's own page gets the session's state", async () => {
    await tab.goto(`http://127.0.0.1:${feedPort}/`, { timeout: 20_000 });
    await tab.evaluate(attempt(feedPort));
    await tab.waitForFunction('window.seen.messages.length > 0', undefined, { timeout: 15_000 });
    const seen = (await tab.evaluate('window.seen')) as { opened: boolean; messages: string[] };
    expect(seen.opened).toBe(true);
    expect((JSON.parse(seen.messages[0]!) as { state: { state: string } }).state.state).toBe('CONVERGING');
  }, 30_000);

  it('no other site can show the dashboard in a frame', async () => {
    // Waits for the page's load, which waits for its frame's.
    await tab.goto(elsewhereUrl, { timeout: 20_000, waitUntil: 'load' });
    const framed = tab.frames().find((frame) => frame !== tab.mainFrame());
    // Refused by frame-ancestors: the frame holds the browser's error page, never the dashboard.
    expect(framed?.url()).toMatch(/^chrome-error:/);
    expect(await framed!.$('#live')).toBeNull();
  }, 30_000);
});

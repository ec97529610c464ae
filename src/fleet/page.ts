import { CONVERGENCE_STATES } from '../../events/index.js';

/*
 * The dashboard: one page, its style sheet and its script, all from the
 * server that serves it (no framework, nothing fetched from elsewhere). It
 * lists the sessions from /api/sessions (a row shown as last read marked
 * `stale` with its age), filters them by state, draws an
 * opened session's weighted open count over the rounds
 * as an SVG line from /api/sessions/<name> beside its status.md, and
 * patches all of it from /events (Server-Sent Events) as sessions change.
 * Every text from a session (names, reasons, status.md) goes into the page
 * as text (textContent), never as markup.
 */

/** `text` safe inside HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside a <script> element: no `<` that could close it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The page's styles, served as /dashboard.css: the page's policy runs no inline style or script. */
export const DASHBOARD_STYLE = `
  :root { color-scheme: light; --line: #d0d7de; --muted: #57606a; --accent: #0969da; }
  body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #fff; }
  header { display: flex; align-items: baseline; gap: 1em; padding: 12px 20px; border-bottom: 1px solid var(--line); }
  h1 { font-size: 18px; margin: 0; }
  #location { color: var(--muted); font-family: ui-monospace, monospace; margin: 0; flex: 1; overflow-wrap: anywhere; }
  #live { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #eee; }
  #live[data-state="live"] { background: #dafbe1; color: #116329; }
  #live[data-state="down"] { background: #ffebe9; color: #a40e26; }
  main { padding: 12px 20px; }
  #filters { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 10px; }
  #filters button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px; background: #f6f8fa; cursor: pointer; }
  #filters button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  td.name { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  tbody tr { cursor: pointer; }
  tbody tr:hover { background: #f6f8fa; }
  tbody tr[aria-selected="true"] { background: #ddf4ff; }
  .badge { font-size: 12px; padding: 1px 6px; border-radius: 4px; background: #eaeef2; white-space: nowrap; }
  .badge.CONVERGING { background: #dafbe1; } .badge.FLAT { background: #fff8c5; } .badge.STALLED { background: #ffebe9; }
  .badge.DIVERGENCE_WARNING { background: #ffebe9; color: #a40e26; } .badge.PAUSED { background: #eaeef2; }
  .badge.COMPLETE { background: #ddf4ff; } .badge.UNREADABLE { background: #a40e26; color: #fff; }
  .badge.stale { background: #fff1e5; color: #953800; margin-left: 4px; }
  tbody tr[data-stale="true"] td { color: var(--muted); }
  #detail { margin-top: 18px; border-top: 1px solid var(--line); padding-top: 10px; }
  #chart svg { max-width: 720px; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
  #chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
  #chart .point { fill: var(--accent); }
  #chart .axis { stroke: #8c959f; stroke-width: 1; }
  #chart text { font-size: 11px; fill: var(--muted); }
  pre { background: #f6f8fa; padding: 10px; border-radius: 6px; overflow: auto; max-height: 60vh; white-space: pre-wrap; }
  .error { color: #a40e26; }
`;

/** The page's script, served as /dashboard.js: a script the server sends as a file of its own is the only kind the page's policy runs. */
export const DASHBOARD_SCRIPT = `
const STATES = JSON.parse(document.getElementById('states').textContent);
const rows = new Map();
let filter = 'ALL';
let selected = null;
const tbody = document.querySelector('#sessions tbody');
const live = document.getElementById('live');

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) node.append(child);
  return node;
}

function stateOf(row) { return row.error === null ? row.state : 'UNREADABLE'; }

function forecastWords(f) {
  if (!f) return '-';
  if (f.finish) return f.finish.low === f.finish.high ? 'round ' + f.finish.low : 'rounds ' + f.finish.low + '-' + f.finish.high;
  return { declining: 'declining', too_few_rounds: 'too few rounds', no_downward_trend: 'not falling', already_done: 'done' }[f.reason] || f.reason;
}

function sinceWords(at) {
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(at)) / 1000));
  return s < 60 ? s + 's' : s < 3600 ? Math.floor(s / 60) + 'm' : s < 86400 ? Math.floor(s / 3600) + 'h' : Math.floor(s / 86400) + 'd';
}

function ageWords(at) { return at ? sinceWords(at) + ' ago' : '-'; }

function staleWords(row) { return 'stale ' + sinceWords(row.staleSince); }

function rowElement(row) {
  const state = stateOf(row);
  const tr = el('tr');
  tr.dataset.name = row.name;
  tr.dataset.state = state;
  tr.setAttribute('aria-selected', String(row.name === selected));
  const cell = (cls, text) => el('td', { className: cls, textContent: text });
  const badge = el('td', { className: 'state' }, el('span', { className: 'badge ' + state, textContent: state }));
  if (row.stale) {
    // Shown as last read: the figures are that read's, and reading the session again failed (why, on hover).
    const mark = el('span', { className: 'badge stale', textContent: staleWords(row), title: 'shown as last read; reading it again failed: ' + row.staleReason });
    mark.dataset.since = row.staleSince;
    badge.append(mark);
    tr.dataset.stale = 'true';
  }
  if (row.error !== null) {
    const why = el('td', { className: 'reason error', colSpan: 6, textContent: row.error });
    tr.append(cell('name', row.name), badge, why);
  } else {
    tr.append(
      cell('name', row.name), badge,
      cell('round num', row.round + (row.roundOpen ? '+' : '')),
      cell('open num', String(row.open)),
      cell('weighted num', String(row.weightedOpen)),
      cell('forecast', forecastWords(row.forecast)),
      cell('age', ageWords(row.lastEventAt)),
      cell('reason', row.lastReason || '-'),
    );
    tr.querySelector('.age').dataset.at = row.lastEventAt || '';
  }
  tr.hidden = filter !== 'ALL' && filter !== state;
  tr.addEventListener('click', () => open(row.name));
  return tr;
}

function draw() {
  tbody.replaceChildren(...[...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(rowElement));
  document.getElementById('empty').hidden = rows.size > 0;
  document.getElementById('count').textContent = rows.size + (rows.size === 1 ? ' session' : ' sessions');
}

function setFilter(next) {
  filter = next;
  for (const button of document.querySelectorAll('#filters button')) button.setAttribute('aria-pressed', String(button.dataset.filter === next));
  for (const tr of tbody.rows) tr.hidden = filter !== 'ALL' && filter !== tr.dataset.state;
}

function filters() {
  const nav = document.getElementById('filters');
  for (const state of ['ALL', ...STATES, 'UNREADABLE']) {
    const button = el('button', { type: 'button', textContent: state === 'ALL' ? 'All' : state });
    button.dataset.filter = state;
    button.addEventListener('click', () => setFilter(state));
    nav.append(button);
  }
  setFilter('ALL');
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  return node;
}

function chart(points) {
  const box = document.getElementById('chart');
  if (points.length === 0) {
    box.replaceChildren(el('p', { textContent: 'No round has closed yet (or no policy reads gaps): nothing to draw.' }));
    return;
  }
  const W = 640, H = 240, L = 44, R = 16, T = 16, B = 32;
  const maxRound = Math.max(1, points[points.length - 1].round);
  const maxY = Math.max(1, ...points.map((p) => p.weightedOpen));
  const x = (round) => L + (round / maxRound) * (W - L - R);
  const y = (value) => T + (1 - value / maxY) * (H - T - B);
  const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'weighted open count per round', 'data-points': points.length });
  root.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }), svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
  for (const value of [0, maxY]) {
    const label = svg('text', { x: L - 6, y: y(value) + 4, 'text-anchor': 'end' });
    label.textContent = String(value);
    root.append(label);
  }
  const step = Math.max(1, Math.ceil(maxRound / 12));
  for (let round = 0; round <= maxRound; round += step) {
    const label = svg('text', { x: x(round), y: H - B + 16, 'text-anchor': 'middle' });
    label.textContent = round === 0 ? 'start' : 'R' + round;
    root.append(label);
  }
  const d = points.map((p, i) => (i === 0 ? 'M' : 'L') + x(p.round).toFixed(1) + ' ' + y(p.weightedOpen).toFixed(1)).join(' ');
  root.append(svg('path', { class: 'line', d }));
  for (const p of points) {
    const dot = svg('circle', { class: 'point', cx: x(p.round).toFixed(1), cy: y(p.weightedOpen).toFixed(1), r: 3.5, 'data-round': p.round, 'data-value': p.weightedOpen });
    const title = svg('title');
    title.textContent = (p.round === 0 ? 'start' : 'round ' + p.round) + ': weighted open ' + p.weightedOpen;
    dot.append(title);
    root.append(dot);
  }
  box.replaceChildren(root);
}

async function open(name) {
  selected = name;
  for (const tr of tbody.rows) tr.setAttribute('aria-selected', String(tr.dataset.name === name));
  const section = document.getElementById('detail');
  const response = await fetch('api/sessions/' + encodeURIComponent(name));
  if (selected !== name) return;
  if (!response.ok) { section.hidden = true; return; }
  const detail = await response.json();
  if (selected !== name) return;
  section.hidden = false;
  document.getElementById('detail-name').textContent = name;
  const why = document.getElementById('detail-error');
  why.textContent = detail.row.error || (detail.row.stale ? staleWords(detail.row) + ': shown as last read; reading it again failed: ' + detail.row.staleReason : '');
  why.hidden = why.textContent === '';
  chart(detail.chart);
  document.getElementById('status').textContent = detail.status || '';
}

function patch(change) {
  for (const name of change.removed) rows.delete(name);
  for (const row of change.rows) rows.set(row.name, row);
  draw();
  if (selected !== null && (change.removed.includes(selected))) { selected = null; document.getElementById('detail').hidden = true; }
  else if (selected !== null && change.rows.some((row) => row.name === selected)) open(selected);
}

function connect() {
  const events = new EventSource('events');
  events.addEventListener('snapshot', (e) => {
    rows.clear();
    patch({ rows: JSON.parse(e.data).sessions, removed: [] });
    live.dataset.state = 'live';
    live.textContent = 'live';
  });
  events.addEventListener('change', (e) => patch(JSON.parse(e.data)));
  events.onerror = () => { live.dataset.state = 'down'; live.textContent = 'reconnecting'; };
}

filters();
connect();
setInterval(() => {
  for (const td of tbody.querySelectorAll('td.age')) td.textContent = ageWords(td.dataset.at);
  for (const mark of tbody.querySelectorAll('.badge.stale')) mark.textContent = 'stale ' + sinceWords(mark.dataset.since);
}, 5000);
`;

/** The dashboard's page for the fleet at `location`. */
export function dashboardPage(location: string): string {
  const where = escapeHtml(location);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gapflow fleet: ${where}</title>
<link rel="stylesheet" href="dashboard.css">
</head>
<body>
<header><h1>gapflow fleet</h1><p id="location">${where}</p><span id="count"></span><span id="live" data-state="connecting">connecting</span></header>
<main>
<nav id="filters" aria-label="Show sessions in state"></nav>
<table id="sessions">
<thead><tr><th>Session</th><th>State</th><th>Round</th><th>Open</th><th>Weighted</th><th>Forecast</th><th>Last event</th><th>Last reason</th></tr></thead>
<tbody></tbody>
</table>
<p id="empty" hidden>No sessions here yet.</p>
<section id="detail" hidden>
<h2 id="detail-name"></h2>
<p id="detail-error" class="error" hidden></p>
<h3>Weighted open count per round</h3>
<div id="chart"></div>
<h3>status.md</h3>
<pre id="status"></pre>
</section>
</main>
<script type="application/json" id="states">${scriptJson(CONVERGENCE_STATES)}</script>
<script src="dashboard.js"></script>
</body>
</html>
`;
}

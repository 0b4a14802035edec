// Browser checks of availmon's page, run by web/browser_test.go:
//   node test/browser.mjs page|reconnect|services|unchecked|added|scale|bars|panels
// (or `node test/browser.mjs weight DIR`: the compressed weight of a built
// page, such as an older web/dist, to compare with what bars prints)
// with AVAILMON_BASE (the page's URL), AVAILMON_CONTROL (the test's control
// server) and AVAILMON_CHROMIUM set. Chromium is Debian's: nothing is
// downloaded. Prints one line per check; exits 1 when one fails.

import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { makeProjection } from '../src/projection.js';
import { shapePath, locationState, LOCATION_STATES } from '../src/states.js';
import { lastDays } from '../src/days.js';
import { sortObjectives } from '../src/objectives.js';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const BASE = process.env.AVAILMON_BASE;
const CONTROL = process.env.AVAILMON_CONTROL;
const scenario = process.argv[2];

let failures = 0;
function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures++;
  return ok;
}
function figure(name, value) {
  console.log(`FIGURE ${name}: ${value}`);
}

async function api(path) {
  const res = await fetch(new URL(path, BASE));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()).data;
}
async function control(path, body) {
  const res = await fetch(new URL(path, CONTROL), { method: 'POST', body });
  if (!res.ok) throw new Error(`control ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.text();
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitAPI polls /api/apps/{name} until its status is want; returns when.
async function waitAPI(app, want, timeout = 10000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const a = await api(`api/apps/${encodeURIComponent(app)}`);
    if (a.status === want) return Date.now();
    await sleep(20);
  }
  throw new Error(`${app} did not turn ${want} in the API within ${timeout} ms`);
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.AVAILMON_CHROMIUM,
    headless: true,
    // Playwright adds --headless and a fresh --user-data-dir of its own.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const state = { offLoopback: [], consoleErrors: [], outage: false, requests: [], writes: [] };
  // Every request goes through here: one that would leave loopback fails
  // the test and is not sent.
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    state.requests.push(u.pathname);
    const method = route.request().method();
    if (method !== 'GET' && method !== 'HEAD') state.writes.push(`${method} ${u.pathname}`);
    if (!LOOPBACK.has(u.hostname)) {
      state.offLoopback.push(u.href);
      return route.abort();
    }
    return route.continue();
  });
  page.on('websocket', (ws) => {
    const u = new URL(ws.url());
    if (!LOOPBACK.has(u.hostname)) state.offLoopback.push(u.href);
  });
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    // A server without objectives answers /api/objectives with 404, which
    // the page reads as "no panel"; the browser logs the status all the
    // same.
    if (/\/api\/objectives$/.test(msg.location().url || '') && /404/.test(msg.text())) return;
    // While the test has taken the server away, the browser itself logs
    // the refused connections; nothing else may be logged as an error.
    if (state.outage && /ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(msg.text())) return;
    state.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => state.consoleErrors.push(`uncaught: ${err.message}`));
  return { browser, context, page, state };
}

async function finish({ browser, state }) {
  check(state.offLoopback.length === 0, 'no request leaves loopback', state.offLoopback.join(', '));
  check(state.consoleErrors.length === 0, 'no console error', state.consoleErrors.join(' | '));
  check(state.writes.length === 0, 'the page only reads (GET)', state.writes.join(', '));
  await browser.close();
}

async function synced(page, timeout = 15000) {
  await page.waitForSelector('#app[data-synced="true"][data-connection="live"]', { timeout });
}

// expectedStates computes each location's state from the API.
async function expectedStates() {
  const locs = await api('api/locations');
  const out = new Map();
  for (const l of locs) {
    const d = await api(`api/locations/${encodeURIComponent(l.name)}`);
    const s = d.summary;
    out.set(l.name, { ...l, state: locationState({ up: s.up_count, down: s.down_count, unavailable: s.unavailable_count }) });
  }
  return out;
}

async function checkMarkers(page, label) {
  const want = await expectedStates();
  const projection = makeProjection();
  const markers = await page.$$eval('.marker', (gs) => gs.map((g) => {
    const path = g.querySelector('path');
    return {
      name: g.dataset.name, state: g.dataset.state, transform: g.getAttribute('transform'),
      d: path.getAttribute('d'), fill: getComputedStyle(path).fill, label: g.getAttribute('aria-label'),
    };
  }));
  const colours = await page.evaluate((ids) => {
    const probe = document.createElement('span');
    document.body.append(probe);
    const out = {};
    for (const id of ids) {
      probe.style.color = `var(--${id})`;
      out[id] = getComputedStyle(probe).color;
    }
    probe.remove();
    return out;
  }, LOCATION_STATES.map((s) => s.id));
  check(new Set(Object.values(colours)).size === 4, `${label}: four distinct state colours`, JSON.stringify(colours));
  check(new Set(LOCATION_STATES.map((s) => shapePath(s.id, 6))).size === 4, `${label}: four distinct state shapes`);
  check(markers.length === want.size, `${label}: one marker per location`, `${markers.length} markers, ${want.size} locations`);
  let bad = [];
  for (const m of markers) {
    const l = want.get(m.name);
    if (!l) { bad.push(`${m.name}: not a location`); continue; }
    const [x, y] = projection([l.longitude, l.latitude]);
    const [, mx, my] = /translate\(([-\d.]+),([-\d.]+)\)/.exec(m.transform) || [];
    if (Math.abs(mx - x) > 0.01 || Math.abs(my - y) > 0.01) bad.push(`${m.name}: at ${mx},${my}, want ${x.toFixed(2)},${y.toFixed(2)}`);
    if (m.state !== l.state) bad.push(`${m.name}: state ${m.state}, want ${l.state}`);
    if (m.d !== shapePath(l.state, 6)) bad.push(`${m.name}: not the ${l.state} shape`);
    if (m.fill !== colours[l.state]) bad.push(`${m.name}: fill ${m.fill}, want ${colours[l.state]}`);
    if (!m.label || !m.label.startsWith(m.name)) bad.push(`${m.name}: aria-label ${m.label}`);
  }
  check(bad.length === 0, `${label}: markers at their coordinates, colour and shape as /api/locations says`, bad.join('; '));
  return want;
}

async function checkSelection(page, name, how) {
  const l = await api(`api/locations/${encodeURIComponent(name)}`);
  const want = l.apps.map((a) => `${a.name}=${a.status}`).sort();
  await page.waitForFunction((n) => document.getElementById('detail-title')?.textContent === `Apps in ${n}`, name, { timeout: 5000 });
  const got = (await page.$$eval('#app-table tbody tr', (rows) => rows.map((r) => `${r.dataset.app}=${r.dataset.status}`))).sort();
  check(JSON.stringify(got) === JSON.stringify(want), `selecting ${name} (${how}) lists exactly its apps`, `got ${got}, want ${want}`);
  // The details come from /api/apps/{name}.
  await page.waitForFunction(() => [...document.querySelectorAll('#app-table tbody tr')].every((r) => r.cells[3].textContent !== '…' && r.cells[5].querySelector('svg.strip')), null, { timeout: 5000 });
  const errors = await page.$$eval('#app-table tbody tr', (rows) => rows.map((r) => [r.dataset.status, r.cells[4].textContent]));
  check(errors.every(([s, e]) => (s === 'up') === (e === '')), `${name}: an error shown for each app not up, none for the up ones`, JSON.stringify(errors));
}

async function axe(page, label) {
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help, where: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(serious.length === 0, `${label}: axe-core finds no serious or critical violation`, JSON.stringify(serious));
  if (violations.length > serious.length) console.log(`     (minor: ${JSON.stringify(violations.filter((v) => !serious.includes(v)))})`);
}

async function flip(page, app, status, location) {
  await control(`flip?app=${encodeURIComponent(app)}&status=${status}`);
  const inAPI = await waitAPI(app, status);
  const l = await api(`api/locations/${encodeURIComponent(location)}`);
  const s = l.summary;
  const want = locationState({ up: s.up_count, down: s.down_count, unavailable: s.unavailable_count });
  await page.waitForFunction(([loc, a, st, ls]) => {
    const m = document.querySelector(`.marker[data-name="${CSS.escape(loc)}"]`);
    const row = document.querySelector(`#location-table tr[data-name="${CSS.escape(loc)}"]`);
    const appRow = document.querySelector(`#app-table tr[data-app="${CSS.escape(a)}"]`);
    return m?.dataset.state === ls && row?.dataset.state === ls && (!appRow || appRow.dataset.status === st);
  }, [location, app, status, want], { timeout: 5000, polling: 'raf' });
  const ms = Date.now() - inAPI;
  check(ms <= 1000, `${app} turned ${status}: the ${location} marker (${want}), its list row and app row follow within 1 s of the API`, `${ms} ms`);
  return ms;
}

async function pageScenario() {
  const b = await launch();
  const { page } = b;
  await page.goto(BASE);
  await synced(page);
  await page.evaluate(() => { window.__loaded = 'once'; });
  check(await page.evaluate(() => !!document.querySelector('.world .land')?.getAttribute('d')), 'the world outline is drawn');
  const want = await checkMarkers(page, 'at load');
  const states = new Set([...want.values()].map((l) => l.state));
  check(states.size === 4, 'the fleet has a location in every state', [...states].join(','));
  check(await page.locator('#legend li').count() === 5, 'the legend lists the four states and the maintenance ring');
  const status = await api('api/status');
  await page.waitForFunction((s) => document.getElementById('system-status').textContent === s, status.system_status, { timeout: 5000 });
  check(true, `the header shows system_status ${status.system_status}`);
  const avail = await page.textContent('#availability');
  check(avail === (status.overall_availability == null ? '—' : `${status.overall_availability.toFixed(2)} %`), 'the header shows overall_availability', `${avail} vs ${status.overall_availability}`);
  check(await page.textContent('#connectivity') === status.prometheus_connectivity, 'the header shows the backend connectivity');
  await page.waitForSelector('#chart svg', { timeout: 5000 });
  check(true, 'the 24h chart is drawn');

  // Selection: by mouse on the map, by keyboard on the map, from the list.
  await page.click('.marker[data-name="London"]');
  await checkSelection(page, 'London', 'click on the map');
  await page.focus('.marker[data-name="Tel Aviv"]');
  await page.keyboard.press('Enter');
  await checkSelection(page, 'Tel Aviv', 'Enter on a focused marker');
  await page.click('#location-table button.loc[data-name="New York"]');
  await checkSelection(page, 'New York', 'click in the list');

  // The list filters and sorts.
  await page.fill('#loc-filter', 'o');
  const filtered = await page.$$eval('#location-table tbody tr', (rs) => rs.map((r) => r.dataset.name));
  check(filtered.length > 0 && filtered.every((n) => n.toLowerCase().includes('o')) && filtered.length === [...want.keys()].filter((n) => n.toLowerCase().includes('o')).length, 'filtering by name', filtered.join(','));
  await page.fill('#loc-filter', '');
  await page.selectOption('#loc-state', 'down');
  const downs = await page.$$eval('#location-table tbody tr', (rs) => rs.map((r) => r.dataset.state));
  check(downs.length === [...want.values()].filter((l) => l.state === 'down').length && downs.every((s) => s === 'down'), 'filtering by state', downs.join(','));
  await page.selectOption('#loc-state', '');
  await page.click('#location-table thead button:text-is("Location")');
  const names = await page.$$eval('#location-table tbody tr', (rs) => rs.map((r) => r.dataset.name));
  check(JSON.stringify(names) === JSON.stringify([...names].sort()), 'sorting by name', names.join(','));

  // Live: a Source-driven app and an HTTP-probed app flip.
  const f1 = await flip(page, 'ny-web', 'down', 'New York');
  const f2 = await flip(page, 'tokyo-web', 'up', 'Tokyo');
  figure('flip to page (Source app, ms after the API showed it)', f1);
  figure('flip to page (HTTP probe, ms after the API showed it)', f2);
  check(await page.evaluate(() => window.__loaded) === 'once', 'no reload happened');
  await checkMarkers(page, 'after the flips');

  await axe(page, 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, 'dark');
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    check(sw <= w, `nothing overflows sideways at ${w}x${h}`, `scrollWidth ${sw}`);
  }
  await axe(page, 'phone width');
  await finish(b);
}

async function reconnectScenario() {
  const b = await launch();
  const { page, state } = b;
  await page.goto(BASE);
  await synced(page);
  await page.evaluate(() => { window.__loaded = 'once'; });
  state.outage = true;
  await control('stop');
  await page.waitForSelector('#app[data-connection="disconnected"] #banner:not([hidden])', { timeout: 15000 });
  const text = await page.textContent('#banner');
  check(/Disconnected/.test(text), 'the page says it is disconnected', text);
  // Meanwhile the world changes.
  await control('flip?app=sydney-web&status=up');
  await sleep(2500);
  check(await page.isVisible('#banner'), 'still disconnected while the server is away');
  await control('start');
  await page.waitForSelector('#app[data-connection="live"][data-synced="true"] #banner[hidden]', { timeout: 20000, state: 'attached' });
  check(true, 'the page reconnects and resyncs');
  await waitAPI('sydney-web', 'up');
  await page.waitForSelector('.marker[data-name="Sydney"][data-state="up"]', { timeout: 5000 });
  check(true, 'the change made while disconnected shows after the resync');
  state.outage = false;
  check(await page.evaluate(() => window.__loaded) === 'once', 'no reload happened');
  await flip(page, 'london-web', 'down', 'London');
  await checkMarkers(page, 'after the reconnect');

  // The monitor is reconfigured at run time: the new location appears,
  // without a reload, in the state its first check gives.
  await control('add-location?location=Nairobi&latitude=-1.2921&longitude=36.8219&app=nairobi-web');
  await waitAPI('nairobi-web', 'up');
  await page.waitForSelector('.marker[data-name="Nairobi"][data-state="up"]', { timeout: 5000 });
  await page.waitForSelector('#location-table tr[data-name="Nairobi"][data-state="up"]', { timeout: 5000 });
  check(await page.evaluate(() => window.__loaded) === 'once', 'a new location shows after a reconfiguration, without a reload');
  await checkMarkers(page, 'after the reconfiguration');
  await finish(b);
}

// checkUnchecked selects location and checks that its table shows exactly
// the apps the API has not checked yet as such, and the others with their
// last check.
async function checkUnchecked(page, location, label) {
  const l = await api(`api/locations/${encodeURIComponent(location)}`);
  const want = l.apps.map((a) => `${a.name}=${a.status}${a.last_check ? '' : ' not checked yet'}`).sort();
  await page.click(`#location-table button.loc[data-name="${location}"]`);
  const r = await until(`${label}: ${location}'s apps`, async () => {
    const got = (await page.$$eval('#app-table tbody tr', (rows) => rows.map((r) => `${r.dataset.app}=${r.dataset.status}${r.dataset.checked === 'false' ? ' not checked yet' : ''}`
      + `|${r.cells[1].textContent}|${r.cells[2].textContent}`))).sort();
    const ok = got.length === want.length && got.every((g, i) => {
      const [key, statusText, lastText] = g.split('|');
      if (key !== want[i]) return false;
      // An unchecked app says so in its status and last check cells; a
      // checked one shows a time.
      return key.endsWith(' not checked yet')
        ? /not checked yet/i.test(statusText) && lastText === 'never'
        : /\d/.test(lastText);
    });
    return { ok, diff: `want ${want}, got ${got}`, got };
  });
  check(true, `${label}: ${location} shows which of its apps are not checked yet`, r.got.join('; '));
}

async function uncheckedScenario() {
  const b = await launch();
  const { page } = b;
  await page.goto(BASE);
  // The first cycle waits for the test: no app has been checked, and the
  // stream's snapshot is empty.
  check((await api('api/apps')).every((a) => a.last_check == null), 'no app has been checked yet');
  await synced(page);
  check(true, 'the page is in sync with every app unchecked');
  await page.evaluate(() => { window.__loaded = 'once'; });
  await checkMarkers(page, 'before the first cycle');
  await checkUnchecked(page, 'London', 'before the first cycle');
  await axe(page, 'apps not checked yet');

  await control('release');
  await waitAPI('london-web', 'up');
  await page.waitForSelector('.marker[data-name="London"][data-state="up"]', { timeout: 5000 });
  await page.waitForSelector('.marker[data-name="Tokyo"][data-state="down"]', { timeout: 5000 });
  await checkMarkers(page, 'after the first cycle');
  await checkUnchecked(page, 'London', 'after the first cycle');
  check(await page.evaluate(() => window.__loaded) === 'once', 'no reload happened');
  await finish(b);
}

async function addedScenario() {
  const b = await launch();
  const { page } = b;
  await waitAPI('london-web', 'up'); // the first cycle has ended
  await page.goto(BASE);
  await synced(page);
  await page.evaluate(() => { window.__loaded = 'once'; });
  await checkMarkers(page, 'at load');

  // A reconfiguration adds Nairobi and an app there; the next cycle is an
  // hour away. The page starts its stream again and must be in sync again
  // without any message about the new app.
  await control('add-location?location=Nairobi&latitude=-1.2921&longitude=36.8219&app=nairobi-web');
  check((await api('api/apps/nairobi-web')).last_check == null, 'the API has not checked the new app');
  await page.waitForSelector('.marker[data-name="Nairobi"]', { timeout: 5000 });
  await synced(page);
  check(true, 'the page is in sync again after the reconfiguration');
  check(await page.evaluate(() => window.__loaded) === 'once', 'the reconfiguration shows without a reload');
  await checkMarkers(page, 'after the reconfiguration');
  await checkUnchecked(page, 'Nairobi', 'after the reconfiguration');

  // A page loaded now has an unchecked app from the start.
  await page.reload();
  await synced(page);
  check(true, 'a page loaded with an unchecked app is in sync');
  await checkMarkers(page, 'loaded with an unchecked app');
  await checkUnchecked(page, 'Nairobi', 'loaded with an unchecked app');
  await finish(b);
}

// until polls fn (every 100 ms) until it returns { ok: true }, and returns
// its value then; after timeout it throws with the last difference.
async function until(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last.ok) return last;
    if (Date.now() > end) throw new Error(`${what}: still differs after ${timeout} ms: ${last.diff}`);
    await sleep(100);
  }
}

// equal compares as JSON and says how they differ.
function same(want, got) {
  const w = JSON.stringify(want); const g = JSON.stringify(got);
  return { ok: w === g, diff: `want ${w}, got ${g}`, want, got };
}

// untilServices waits until the services table shows what /api/services
// says: a row per service with its state, locations up, quorum and apps.
async function untilServices(page, label) {
  const r = await until(`${label}: the services panel`, async () => {
    const want = (await api('api/services')).map((s) => [s.name, s.status, `${s.locations_up} of ${s.locations_total}`, String(s.min_up), String(s.apps_count)]);
    const got = await page.$$eval('#service-table tbody tr[data-service]', (rows) => rows.map((r) => [
      r.dataset.service, r.dataset.status, r.cells[2].textContent, r.cells[3].textContent, r.cells[4].textContent]));
    return same(want, got);
  });
  check(true, `${label}: the services panel shows /api/services`, r.got.map((x) => `${x[0]} ${x[1]} ${x[2]}`).join('; '));
  return r.want;
}

// untilServiceDetail waits until an open service's row lists its
// locations, their states and apps as /api/services/{name} does.
async function untilServiceDetail(page, name, label) {
  const r = await until(`${label}: ${name}'s locations`, async () => {
    const d = await api(`api/services/${encodeURIComponent(name)}`);
    const want = d.locations.map((l) => [l.name, l.status, l.apps.map((a) => `${a.name}=${a.status}${a.maintenance ? '+maintenance' : ''}`)]);
    const got = await page.$$eval(`tr[data-service-detail="${name}"]:not([hidden]) li[data-location]`, (lis) => lis.map((li) => [
      li.dataset.location, li.dataset.status,
      [...li.querySelectorAll('.app')].map((a) => `${a.dataset.app}=${[...a.classList].find((c) => c.startsWith('status-')).slice(7)}${a.classList.contains('in-maint') ? '+maintenance' : ''}`)]));
    return same(want, got);
  });
  check(true, `${label}: ${name} lists its locations and apps as /api/services/${name}`, r.got.map((l) => `${l[0]} ${l[1]}`).join('; '));
}

// untilMaintenance waits until the page shows what the API says of
// maintenance: the open and upcoming windows (and how many are over), the
// apps in maintenance by location, the rings on the map, the list's
// counts and the header's.
async function untilMaintenance(page, label, timeout = 20000) {
  const r = await until(`${label}: maintenance`, async () => {
    const windows = await api('api/maintenance');
    const apps = await api('api/apps');
    const status = await api('api/status');
    const locs = await api('api/metrics/summary');
    const phase = (w) => (w.active ? 'open' : w.next_start ? 'upcoming' : 'over');
    const byLoc = {};
    for (const a of apps) if (a.maintenance) (byLoc[a.location] ||= []).push(a.name);
    const want = {
      windows: windows.filter((w) => phase(w) !== 'over').map((w) => `${w.id}=${phase(w)}`).sort(),
      over: windows.filter((w) => phase(w) === 'over').length,
      now: Object.keys(byLoc).sort().map((l) => `${l}: ${byLoc[l].sort().join(', ')}`),
      rings: locs.locations_summary.filter((l) => l.apps_maintenance).map((l) => `${l.name}=${l.apps_maintenance}`).sort(),
      header: status.applications_maintenance ? `${status.applications_maintenance} in maintenance` : 'none',
    };
    const got = await page.evaluate(() => ({
      windows: [...document.querySelectorAll('#maint-table tbody tr')].map((r) => `${r.dataset.window}=${r.dataset.phase}`).sort(),
      over: Number((/(\d+) over/.exec(document.getElementById('maint-count').textContent) || [0, 0])[1]),
      now: [...document.querySelectorAll('#maint-locations li')].map((li) => li.textContent),
      rings: [...document.querySelectorAll('.marker[data-maintenance]')].map((m) => `${m.dataset.name}=${m.dataset.maintenance}`).sort(),
      header: (/(\d+ in maintenance)/.exec(document.getElementById('app-counts').textContent) || [0, 'none'])[1],
      listRows: [...document.querySelectorAll('#location-table tr[data-maintenance]')].map((r) => `${r.dataset.name}=${r.dataset.maintenance}`).sort(),
    }));
    const ok = same(want, { ...got, listRows: undefined }).ok && JSON.stringify(got.listRows) === JSON.stringify(want.rings);
    return { ok, diff: `want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`, want, got };
  }, timeout);
  check(true, `${label}: windows, apps in maintenance, rings, list and header as the API says`,
    `windows ${r.got.windows.join(',') || 'none'}; ${r.got.over} over; now ${r.got.now.join(' | ') || 'none'}`);
  return r.want;
}

// waitApp polls /api/apps/{name} until pred holds.
async function waitApp(app, pred, what, timeout = 30000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if (pred(await api(`api/apps/${encodeURIComponent(app)}`))) return Date.now();
    await sleep(50);
  }
  throw new Error(`${app}: ${what} not seen in the API within ${timeout} ms`);
}

async function serviceStatus(name) {
  return (await api(`api/services/${encodeURIComponent(name)}`)).status;
}

async function servicesScenario() {
  const b = await launch();
  const { page } = b;
  await page.goto(BASE);
  await synced(page);
  await page.evaluate(() => { window.__loaded = 'once'; });
  check(await page.locator('#legend li').count() === 5, 'the legend lists the four states and the maintenance ring');

  const svcs = await untilServices(page, 'at load');
  check(svcs.length === 2, 'the fleet has two services', svcs.map((s) => s[0]).join(','));
  const m0 = await untilMaintenance(page, 'at load');
  check(m0.now.length === 1 && m0.now[0].startsWith('Sydney') && m0.over === 1, 'at load: Sydney is in maintenance, a window is over', JSON.stringify(m0));
  check(await page.$('#maint-table tr[data-window="web-daily"][data-phase="upcoming"]') != null, 'the recurring window is listed as upcoming');
  // The API leaves apps in maintenance out of a location's counts; so do
  // the markers.
  await checkMarkers(page, 'at load, with Sydney in maintenance');

  // A service opens by keyboard; a location in it selects that location.
  await page.focus('#service-table button.svc[data-name="web"]');
  await page.keyboard.press('Enter');
  check(await page.getAttribute('#service-table button.svc[data-name="web"]', 'aria-expanded') === 'true', 'Enter on a service opens it (aria-expanded)');
  await untilServiceDetail(page, 'web', 'opened by keyboard');
  await page.click('tr[data-service-detail="web"] button.loc[data-name="Sydney"]');
  await checkSelection(page, 'Sydney', 'click in the services panel');
  check(await page.$('#app-table tr[data-app="sydney-web"][data-maintenance="true"] .tag-maint') != null, 'the selected location\'s app in maintenance is marked in its row');
  await page.click('#maint-locations button.loc[data-name="Sydney"]');
  check(await page.textContent('#detail-title') === 'Apps in Sydney', 'a location in the maintenance panel selects it');

  await axe(page, 'services and maintenance, light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, 'services and maintenance, dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Three web apps go down: fewer than three of web's locations are up.
  for (const app of ['london-web', 'ny-web', 'saopaulo-web']) {
    await control(`flip?app=${app}&status=down`);
    await waitAPI(app, 'down');
  }
  check(await serviceStatus('web') === 'down', 'the API says web is down below its quorum');
  await untilServices(page, 'after three web apps went down');
  await untilServiceDetail(page, 'web', 'after three web apps went down');

  // A window for london-web, added through the API, opens in 15 s (after
  // the page's next poll has seen it) and closes 8 s later.
  const from = Date.now() + 15000;
  const body = JSON.stringify({ app: 'london-web', from: new Date(from).toISOString(), to: new Date(from + 8000).toISOString(), comment: 'reboot' });
  const win = JSON.parse(await control('maintenance', body)).data;
  await page.waitForSelector(`#maint-table tr[data-window="${win.id}"][data-phase="upcoming"]`, { timeout: 14000 });
  check(true, `the window ${win.id} added through the API shows as upcoming`);
  const opened = await waitApp('london-web', (a) => a.maintenance, 'maintenance');
  await untilMaintenance(page, 'after the window opened');
  figure('window opened to page (ms after the API showed the app in maintenance)', Date.now() - opened);
  check(await serviceStatus('web') === 'degraded', 'the API counts london-web in maintenance as up: web is degraded');
  await untilServices(page, 'with london-web in maintenance');
  await untilServiceDetail(page, 'web', 'with london-web in maintenance');
  await checkMarkers(page, 'with London in maintenance');
  if (process.env.AVAILMON_SCREENSHOT) {
    await page.click('.marker[data-name="London"]');
    await checkSelection(page, 'London', 'click on the map');
    await page.screenshot({ path: process.env.AVAILMON_SCREENSHOT, fullPage: true });
  }
  const closed = await waitApp('london-web', (a) => !a.maintenance, 'out of maintenance');
  const m2 = await untilMaintenance(page, 'after the window closed');
  figure('window closed to page (ms after the API showed the app out of maintenance)', Date.now() - closed);
  check(m2.over === 2, 'the window that closed counts as over', String(m2.over));
  await untilServices(page, 'after the window closed');

  // An open window added through the API, then deleted: the page sees
  // both at its next poll.
  const open = JSON.parse(await control('maintenance', JSON.stringify({
    location: 'Tel Aviv', from: new Date(Date.now() - 60000).toISOString(), to: new Date(Date.now() + 3600000).toISOString(),
  }))).data;
  await waitApp('telaviv-db', (a) => a.maintenance, 'maintenance');
  const m3 = await untilMaintenance(page, 'an open window added through the API');
  check(m3.now.some((l) => l.startsWith('Tel Aviv: telaviv-db, telaviv-web')), 'Tel Aviv\'s apps are in maintenance', m3.now.join(' | '));
  await control(`maintenance-delete?id=${encodeURIComponent(open.id)}`);
  await waitApp('telaviv-db', (a) => !a.maintenance, 'out of maintenance');
  await untilMaintenance(page, 'the open window deleted');
  await checkMarkers(page, 'after the windows');
  check(await page.evaluate(() => window.__loaded) === 'once', 'no reload happened');

  await page.setViewportSize({ width: 390, height: 844 });
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  check(sw <= 390, 'nothing overflows sideways at 390x844', `scrollWidth ${sw}`);
  await axe(page, 'services and maintenance, phone width');
  await finish(b);
}

// longestTask finds the longest task of the renderer's main thread in a
// Chromium trace, as wall time and as CPU time (on a busy machine a task's
// wall time includes the time the OS ran other work).
function longestTask(trace) {
  const events = trace.traceEvents || trace;
  const mains = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
  const runs = events.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X' && mains.has(`${e.pid}/${e.tid}`));
  const wall = runs.reduce((m, e) => Math.max(m, e.dur || 0), 0) / 1000;
  const cpu = runs.reduce((m, e) => Math.max(m, e.tdur || 0), 0) / 1000;
  return `${wall.toFixed(0)} / ${cpu.toFixed(0)} (of ${runs.length} tasks)`;
}

// cpuUntil sums the CPU time of the renderer's main-thread tasks that
// started before the user-timing mark named mark.
function cpuUntil(trace, mark) {
  const events = trace.traceEvents || trace;
  const m = events.find((e) => e.name === mark);
  if (!m) return 'mark not in the trace';
  const mains = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
  const runs = events.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X' && mains.has(`${e.pid}/${e.tid}`) && e.ts <= m.ts);
  return (runs.reduce((sum, e) => sum + (e.tdur || 0), 0) / 1000).toFixed(0);
}

async function scaleScenario() {
  const b = await launch();
  const { page, state } = b;
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await b.browser.startTracing(page, { categories: ['toplevel', '__metadata', 'blink.user_timing'] });
  await page.goto(BASE);
  await synced(page, 30000);
  const loadTrace = JSON.parse((await b.browser.stopTracing()).toString());
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
  const render = marks['availmon:rendered'];
  figure('first meaningful render: map and list drawn with every location\'s state (ms from navigation start)', render);
  figure('stream snapshot (10,000 messages) applied (ms from navigation start)', marks['availmon:synced']);
  figure('longest renderer main-thread task from navigation to sync (ms wall / ms CPU)', longestTask(loadTrace));
  figure('renderer main-thread CPU time until the first meaningful render (ms; the wall time above includes waiting for the server and other processes)', cpuUntil(loadTrace, 'availmon:rendered'));
  figure('machine load average (1 min)', os.loadavg()[0].toFixed(1));
  check(render != null, 'the page marks its first meaningful render');
  const n = await page.$$eval('.marker[data-state="up"]', (m) => m.length);
  check(n === 100, '100 markers, all up', `${n}`);
  await page.click('.marker[data-name="loc-000"]');
  await page.waitForSelector('#app-table tbody tr[data-app="app-00000"]');
  await sleep(1000);

  const before = Number(await page.getAttribute('#app', 'data-applied'));
  const t0 = await page.evaluate(() => performance.now());
  state.requests = [];
  // A trace of the same window gives each task's CPU time too: on a busy
  // machine a task's wall time includes the time the OS ran other work.
  await b.browser.startTracing(page, { categories: ['toplevel', '__metadata'] });
  check(await control('flip-many?n=1000') === '1000', 'the source flips 1,000 apps');
  await page.waitForFunction((want) => Number(document.getElementById('app').dataset.applied) >= want, before + 1000, { timeout: 15000 });
  await sleep(1000);
  const trace = JSON.parse((await b.browser.stopTracing()).toString());
  const tasks = await page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t), t0);
  const longest = tasks.reduce((m, e) => Math.max(m, e.duration), 0);
  figure('longest main-thread task while applying 1,000 changes (ms; 0 means none over 50 ms)', longest.toFixed(0));
  figure('long tasks (over 50 ms) in that time', tasks.length);
  figure('longest renderer main-thread task in a trace of the same window (ms wall / ms CPU)', longestTask(trace));
  figure('machine load average (1 min) while measuring', os.loadavg()[0].toFixed(1));
  const down = await page.$$eval('.marker[data-state="down"]', (m) => m.length);
  check(down === 100, 'every location shows some down', `${down}`);
  const lists = state.requests.filter((p) => /\/api\/apps$/.test(p)).length;
  const perApp = state.requests.filter((p) => /\/api\/apps\/./.test(p)).length;
  check(lists === 0, 'no /api/apps list fetch for the events', `${lists}`);
  figure('/api/apps/{name} fetches for the 1,000 changes (selected location\'s changed apps only)', perApp);
  await finish(b);
}

// PAGE_FILES are what a browser loads to show the page.
const PAGE_FILES = [['', 'index.html'], ['assets/app.js'], ['assets/style.css'], ['assets/icon.svg']];

// pageWeight sums the page's files as served and as gzip -9 compresses
// them (the Go server sends them as they are; a proxy in front compresses).
async function pageWeight(read) {
  let raw = 0; let gz = 0;
  for (const [path, file] of PAGE_FILES) {
    const body = await read(path, file || path);
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  return `${gz} compressed (${raw} raw)`;
}

async function weightScenario() {
  const dir = process.argv[3];
  figure(`page weight of ${dir} (bytes)`, await pageWeight((path, file) => readFileSync(join(dir, file))));
}

// untilTrue polls fn in the page until it returns true.
async function untilTrue(page, fn, arg, what, timeout = 15000) {
  try {
    await page.waitForFunction(fn, arg, { timeout });
  } catch {
    throw new Error(`${what}: not within ${timeout} ms`);
  }
}

// shownLevels reads the drawn rows of the bars: name -> each day's class.
async function shownLevels(page) {
  return page.$$eval('#bars-grid [role=row]', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.name,
    [...r.querySelectorAll('.day')].map((c) => [...c.classList].filter((k) => k !== 'day').join('+'))])));
}

// checkLevels compares the drawn rows with an /api/availability answer.
function checkLevels(got, answer, label) {
  const want = new Map(answer.items.map((it) => [it.name, lastDays(answer.steps, it.steps).map((d) => `d-${d.level}${d.low ? '+low' : ''}`)]));
  const bad = [];
  for (const [name, levels] of Object.entries(got)) {
    const w = want.get(name);
    if (!w) { bad.push(`${name}: not in the API`); continue; }
    const pad = Array(levels.length - w.length).fill('d-none');
    if (JSON.stringify([...pad, ...w]) !== JSON.stringify(levels)) bad.push(`${name}: ${levels.slice(-3)} vs ${w.slice(-3)}`);
  }
  check(Object.keys(got).length > 0 && bad.length === 0, `${label}: ${Object.keys(got).length} drawn rows, each day as /api/availability says`, bad.slice(0, 5).join('; '));
}

const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a.classList.contains('day') ? `${a.parentNode.dataset.name}/${a.dataset.day}` : a.id;
});

async function barsScenario() {
  // The page's figures are compared below with a later answer of the API:
  // until a cycle after the first has counted some time, the two can fall
  // either side of it (no data, then a little up time).
  const start = Date.now();
  for (;;) {
    const av = await api('api/availability?window=1h&by=location');
    if (av.items.length > 0 && av.items.every((it) => it.up_seconds + it.down_seconds > 0)) break;
    if (Date.now() - start > 30000) throw new Error('no location has counted time after 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const b = await launch();
  const { page, state } = b;
  await page.goto(BASE);
  await synced(page, 30000);
  await untilTrue(page, () => performance.getEntriesByName('availmon:bars').length > 0, null, 'first bars', 30000);
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
  figure('first meaningful render: map and list (ms from navigation start)', marks['availmon:rendered']);
  figure('stream snapshot applied (ms from navigation start)', marks['availmon:synced']);
  figure('first 90-day bars drawn, locations (ms from navigation start)', marks['availmon:bars']);
  figure('page weight as served, gzip -9 (bytes)', await pageWeight(async (path) => Buffer.from(await (await fetch(new URL(path, BASE))).arrayBuffer())));
  figure('machine load average (1 min)', os.loadavg()[0].toFixed(1));
  const tz = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const q = (by, loc) => `api/availability?window=90d&step=1d&by=${by}&tz=${encodeURIComponent(tz)}${loc ? `&location=${loc}` : ''}`;

  check(await page.getAttribute('#bars-grid', 'aria-rowcount') === '100', 'the bars list the 100 locations');
  await untilTrue(page, () => document.querySelector('#bars-grid [role=row]') && !document.querySelector('#bars-grid .d-loading'), null, 'the locations\' figures');
  checkLevels(await shownLevels(page), await api(q('location')), 'locations');

  // Apps: 10,000 rows, of which only those on screen exist.
  const t0 = await page.evaluate(() => performance.now());
  await page.click('button.kind[data-kind="app"]');
  await untilTrue(page, () => {
    const r = document.querySelector('#bars-grid [role=row][data-name="app-00000"]');
    return r && !r.querySelector('.d-loading');
  }, null, 'the first app\'s bars');
  figure('apps view: click to the first app bars drawn (ms)', Math.round(await page.evaluate(() => performance.now()) - t0));
  check(await page.getAttribute('#bars-grid', 'aria-rowcount') === '10000', 'the bars list 10,000 apps (aria-rowcount)');
  const drawn = () => page.$$eval('#bars-grid [role=row]', (r) => r.length);
  let n = await drawn();
  check(n > 5 && n < 60, 'only the rows on screen are drawn', `${n} rows`);
  checkLevels(await shownLevels(page), await api(q('app', 'loc-000')), 'apps at the top');
  state.requests = [];
  await page.evaluate(() => { const g = document.getElementById('bars-grid'); g.scrollTop = g.scrollHeight; });
  await untilTrue(page, () => {
    const r = document.querySelector('#bars-grid [role=row][data-name="app-09999"]');
    return r && !r.querySelector('.d-loading');
  }, null, 'the last app\'s bars');
  n = await drawn();
  check(n > 5 && n < 60, 'scrolled to the end: still only the rows on screen are drawn', `${n} rows`);
  const fetched = state.requests.filter((p) => p.endsWith('/api/availability')).length;
  check(fetched >= 1 && fetched <= 2, 'scrolling to the end fetched only the figures of the locations in view', `${fetched} requests`);
  checkLevels(await shownLevels(page), await api(q('app', 'loc-099')), 'apps at the end');

  // An app goes down: its day lists the outage, by click and by keyboard.
  await control('flip?app=app-00042&status=down');
  await waitAPI('app-00042', 'down', 15000);
  let outages = [];
  for (const end = Date.now() + 15000; outages.length === 0 && Date.now() < end; await sleep(100)) {
    outages = (await api('api/apps/app-00042/outages')).outages;
  }
  check(outages.length === 1 && outages[0].ongoing, 'the API has app-00042\'s ongoing outage', JSON.stringify(outages));
  await page.fill('#bars-filter', 'app-00042');
  const today = '#bars-grid [role=row][data-name="app-00042"] .day[data-day="89"]';
  await untilTrue(page, (sel) => {
    const c = document.querySelector(sel);
    return c && /\bd-(minor|major|down)\b/.test(c.className);
  }, today, 'app-00042\'s day showing downtime');
  check(await page.$$eval('#bars-grid [role=row]', (r) => r.length) === 1, 'the name filter leaves one row');
  check(/down/.test(await page.getAttribute(today, 'aria-label')), 'today\'s cell names its downtime', await page.getAttribute(today, 'aria-label'));
  await page.hover(today);
  await untilTrue(page, () => { const t = document.querySelector('.bars-tip'); return t && !t.hidden && /1 outage\b/.test(t.textContent); }, null, 'the tooltip with the day\'s outage');
  check(true, 'the tooltip gives the day\'s downtime and outages', await page.textContent('.bars-tip'));

  const opened = async (how) => {
    await untilTrue(page, () => document.querySelector('#bars-day:not([hidden])[data-count]'), null, `the day's outages (${how})`);
    const items = await page.$$eval('#bars-day li', (li) => li.map((l) => l.dataset.start));
    check(JSON.stringify(items) === JSON.stringify(outages.map((o) => o.start)), `${how}: the day lists app-00042's outage as /api/apps/app-00042/outages`, items.join(','));
    check(await focused(page) === 'bars-day-title', `${how}: the focus moves to the list's heading`, await focused(page));
    await page.keyboard.press('Escape');
    check(await focused(page) === 'app-00042/89' && await page.isHidden('#bars-day'), `${how}: Escape closes it and gives the focus back to the day`, await focused(page));
  };
  await page.click(today);
  await opened('click');
  await page.keyboard.press('ArrowLeft');
  check(await focused(page) === 'app-00042/88', 'ArrowLeft moves to the day before', await focused(page));
  check(await page.$$eval('#bars-grid .day[tabindex="0"]', (c) => c.length) === 1, 'the grid has one tab stop');
  await page.keyboard.press('End');
  check(await focused(page) === 'app-00042/89', 'End moves to today', await focused(page));
  await page.keyboard.press('Enter');
  await opened('Enter');
  await page.keyboard.press(' ');
  await opened('Space');

  // Keyboard across rows, through the virtualised list.
  await page.fill('#bars-filter', '');
  await page.focus('#bars-grid .day[tabindex="0"]');
  await page.keyboard.press('Control+End');
  check(await focused(page) === 'app-09999/89', 'Ctrl+End moves to the last app, drawn on the way', await focused(page));
  await page.keyboard.press('Control+Home');
  check(await focused(page) === 'app-00000/89', 'Ctrl+Home moves to the first app', await focused(page));
  await page.keyboard.press('ArrowDown');
  check(await focused(page) === 'app-00100/89', 'ArrowDown moves to the next app (of the same location)', await focused(page));

  await page.fill('#bars-filter', 'app-00042');
  await page.click(today);
  await untilTrue(page, () => document.querySelector('#bars-day[data-count]'), null, 'the day open for axe');
  await axe(page, 'bars, light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, 'bars, dark');
  await page.setViewportSize({ width: 390, height: 844 });
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  check(sw <= 390, 'nothing overflows sideways at 390x844', `scrollWidth ${sw}`);
  await finish(b);
}

async function panelsScenario() {
  const b = await launch();
  const { page } = b;
  await page.goto(BASE);
  await synced(page);
  await page.waitForSelector('#objectives[data-answer="empty"]', { state: 'attached', timeout: 10000 });
  check(await page.isHidden('#objectives'), 'no objectives panel while the monitor has none configured');
  await untilTrue(page, () => document.getElementById('interval').textContent !== '…', null, 'the header\'s first /api/status');
  check(await page.isHidden('#backfill'), 'no progress bar when /api/status has no backfill member');

  await control('backfill?state=running&progress=0.25');
  await page.waitForSelector('#backfill:not([hidden])', { timeout: 20000 });
  const bar = await page.$eval('#backfill', (e) => ({ value: e.querySelector('progress').value, text: e.textContent }));
  check(bar.value === 0.25 && /25 %/.test(bar.text) && /2 of 10 apps/.test(bar.text), 'running: the progress bar appears with its progress', JSON.stringify(bar));
  await control('backfill?state=waiting&progress=0.5');
  await untilTrue(page, () => /retrying/.test(document.getElementById('backfill').textContent) && document.querySelector('#backfill progress').value === 0.5, null, 'waiting', 10000);
  check(true, 'waiting: the bar moves and says the backfill retries', await page.textContent('#backfill'));
  await axe(page, 'with the progress bar');
  await control('backfill?state=done&progress=1');
  await page.waitForSelector('#backfill[hidden]', { state: 'attached', timeout: 10000 });
  check(true, 'done: the progress bar goes');

  await control('objectives?mode=list');
  await page.reload();
  await synced(page);
  await page.waitForSelector('#objectives[data-answer="list"]:not([hidden])', { timeout: 10000 });
  const list = await api('api/objectives');
  const orders = new Set();
  for (const key of ['name', 'target', 'attainment', 'budget', 'burn', 'state']) {
    for (let i = 0; i < 2; i++) {
      await page.click(`#objective-table th[data-key="${key}"] button`);
      const dir = await page.getAttribute(`#objective-table th[data-key="${key}"]`, 'aria-sort') === 'ascending' ? 1 : -1;
      const got = await page.$$eval('#objective-table tbody tr', (r) => r.map((x) => x.dataset.objective));
      const want = sortObjectives(list, key, dir).map((o) => o.name);
      check(JSON.stringify(got) === JSON.stringify(want), `objectives sorted by ${key} ${dir > 0 ? 'ascending' : 'descending'}`, got.join(','));
      orders.add(got.join(','));
    }
  }
  check(orders.size >= 4, 'the columns order the objectives differently', [...orders].join(' | '));
  // checkout's app has been up every second it was checked, api-gateway's
  // down, web-front's unavailable (nothing counted): the real figures.
  const rows = {};
  for (const name of ['checkout', 'api-gateway', 'web-front']) {
    rows[name] = await page.$eval(`#objective-table tr[data-objective="${name}"]`, (r) => [...r.cells].map((c) => c.textContent.trim()));
  }
  check(JSON.stringify(rows.checkout) === JSON.stringify(['checkout', '99.950 %', '100.000 %', '100.0 %', '0.00×', 'OK']), 'an up app\'s row shows target, attainment, budget left, burn (1h) and state', JSON.stringify(rows.checkout));
  check(JSON.stringify(rows['api-gateway']) === JSON.stringify(['api-gateway', '99.000 %', '0.000 %', '-9900.0 %', '100.00×', 'Breached']), 'a down app\'s row is breached, its budget overspent 99 times', JSON.stringify(rows['api-gateway']));
  // A calendar month's budget counts its rest as if observed: all left.
  check(JSON.stringify(rows['web-front']) === JSON.stringify(['web-front', '99.900 %', '—', '100.0 %', '—', 'OK']), 'an unobserved app\'s row has no attainment or burn, its month\'s budget whole', JSON.stringify(rows['web-front']));
  const width = await page.$eval('#objective-table tr[data-objective="checkout"] .budget > span', (s) => s.style.width);
  check(parseFloat(width) === 100, 'the budget bar is as long as the budget left', width);
  await page.click('#objective-table button.obj[data-name="checkout"]');
  // Attached, not visible: a monitor up for seconds has one point, a line
  // of no length.
  await page.waitForSelector('#objective-chart[data-name="checkout"] svg polyline', { state: 'attached', timeout: 5000 });
  const pts = await page.$eval('#objective-chart polyline', (p) => p.getAttribute('points').split(' ').length);
  const detail = await api('api/objectives/checkout');
  const withBudget = detail.budget_series.filter((p) => p.remaining_ratio != null).length;
  check(pts === withBudget && pts >= 1, 'selecting an objective draws its budget_series', `${pts} points of ${detail.budget_series.length}, ${withBudget} with a budget`);
  if (pts === 1) {
    const dot = await page.$('#objective-chart svg circle.dot');
    check(dot !== null && await dot.isVisible(), 'a budget of one point is drawn as a visible dot');
  }
  check(await page.getAttribute('#objective-table button.obj[data-name="checkout"]', 'aria-pressed') === 'true', 'the selected objective is pressed');
  await axe(page, 'objectives, light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, 'objectives, dark');
  await finish(b);
}

const scenarios = {
  page: pageScenario, reconnect: reconnectScenario, services: servicesScenario,
  unchecked: uncheckedScenario, added: addedScenario, scale: scaleScenario,
  bars: barsScenario, panels: panelsScenario, weight: weightScenario,
};
try {
  await scenarios[scenario]();
} catch (err) {
  check(false, `${scenario} ran to the end`, err.stack || String(err));
}
process.exit(failures > 0 ? 1 : 0);

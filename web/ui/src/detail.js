// The apps of the selected location. Status and last check come from the
// store; response time, error and the recent history from /api/apps/{name},
// fetched for the shown rows when the location is selected and again for an
// app whose state changed (a few at a time, never for the whole fleet).

import { getJSON } from './api.js';
import { APP_STATUS_LABEL, stateIcon, stateInfo } from './states.js';
import { availability, clock, percent, seconds } from './format.js';
import { h } from './dom.js';

const PAGE = 200; // rows shown at first and added by "Show more"
const PARALLEL = 4; // /api/apps/{name} requests at once
const HISTORY = 60; // checks in the history strip
const SVG = 'http://www.w3.org/2000/svg';

export class Detail {
  constructor(root, store) {
    this.root = root;
    this.store = store;
    this.name = null;
    this.rows = new Map(); // app -> {tr, cells, status}
    this.limit = PAGE;
    this.queue = [];
    this.queued = new Set();
    this.running = 0;
    this.generation = 0;
    store.subscribe((change) => this.update(change));
  }

  show(name) {
    this.name = name;
    this.limit = PAGE;
    this.render();
  }

  render() {
    this.generation++;
    this.queue = [];
    this.queued.clear();
    this.rows.clear();
    const l = this.store.locations.get(this.name);
    const title = h('h2', { id: 'detail-title', text: l ? `Apps in ${l.name}` : 'Apps' });
    if (!l) {
      this.root.replaceChildren(title, h('p', { class: 'hint', text: 'Select a location on the map or in the list.' }));
      return;
    }
    this.summary = h('p', { class: 'summary', 'aria-live': 'polite' });
    this.tbody = h('tbody');
    const head = h('tr', {}, ...['App', 'Status', 'Last check', 'Response time', 'Error', 'Recent checks']
      .map((t, i) => h('th', { scope: 'col', class: i === 3 ? 'num' : '', text: t })));
    const table = h('table', { class: 'apps', id: 'app-table' },
      h('caption', { class: 'visually-hidden', text: `Apps in ${l.name}` }), h('thead', {}, head), this.tbody);
    const parts = [title, this.summary, h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': `Table of the apps in ${l.name}` }, table)];
    const shown = l.apps.slice(0, this.limit);
    if (l.apps.length > shown.length) {
      const more = h('button', { type: 'button', class: 'more', text: `Show ${Math.min(PAGE, l.apps.length - shown.length)} more of ${l.apps.length - shown.length}` });
      more.addEventListener('click', () => { this.limit += PAGE; this.render(); });
      parts.push(more);
    }
    this.root.replaceChildren(...parts);
    for (const app of shown) {
      const row = this.makeRow(app);
      this.rows.set(app, row);
      this.tbody.append(row.tr);
      this.fetch(app);
    }
    this.paintSummary(l);
  }

  update({ reset, locations, apps }) {
    if (this.name == null) return;
    if (reset) {
      this.render();
      return;
    }
    for (const app of apps) {
      const row = this.rows.get(app);
      if (!row) continue;
      const a = this.store.apps.get(app);
      if (this.paintRow(row, a)) this.fetch(app);
    }
    if (locations.has(this.name)) this.paintSummary(this.store.locations.get(this.name));
  }

  paintSummary(l) {
    this.summary.replaceChildren(stateIcon(l.state), document.createTextNode(
      ` ${stateInfo(l.state).label}: ${l.up} up, ${l.down} down, ${l.unavailable} unavailable${l.maintenance > 0 ? `, ${l.maintenance} in maintenance` : ''}; availability ${percent(availability(l.up, l.down))}`));
  }

  makeRow(app) {
    const cells = [h('th', { scope: 'row', text: app }), h('td'), h('td'), h('td', { class: 'num', text: '…' }), h('td', { class: 'error' }), h('td')];
    const tr = h('tr', { 'data-app': app }, ...cells);
    const row = { tr, cells, status: null, maintenance: false, unchecked: undefined, lastCheck: undefined };
    this.paintRow(row, this.store.apps.get(app));
    return row;
  }

  // paintRow shows the store's view of the app and reports whether its
  // last check changed, so that its details are worth fetching again.
  // An app not checked yet is unavailable, as the API says, and says why.
  paintRow(row, a) {
    if (row.status !== a.status || row.maintenance !== a.maintenance || row.unchecked !== a.unchecked) {
      row.status = a.status;
      row.maintenance = a.maintenance;
      row.unchecked = a.unchecked;
      row.tr.dataset.status = a.status;
      if (a.maintenance) row.tr.dataset.maintenance = 'true';
      else delete row.tr.dataset.maintenance;
      if (a.unchecked) row.tr.dataset.checked = 'false';
      else delete row.tr.dataset.checked;
      row.cells[1].replaceChildren(h('span', { class: `status status-${a.status}`, text: APP_STATUS_LABEL[a.status] || a.status }),
        ...(a.unchecked ? [' ', h('span', { class: 'tag-unchecked', text: 'not checked yet' })] : []),
        ...(a.maintenance ? [' ', h('span', { class: 'tag-maint', text: 'in maintenance' })] : []));
    }
    const last = a.unchecked ? 'never' : a.lastCheck;
    if (row.lastCheck === last) return false;
    row.lastCheck = last;
    row.cells[2].textContent = a.unchecked ? 'never' : clock(a.lastCheck);
    return true;
  }

  fetch(app) {
    if (this.queued.has(app)) return;
    this.queued.add(app);
    this.queue.push(app);
    this.pump();
  }

  pump() {
    while (this.running < PARALLEL && this.queue.length > 0) {
      const app = this.queue.shift();
      this.queued.delete(app);
      const gen = this.generation;
      this.running++;
      getJSON(`api/apps/${encodeURIComponent(app)}`)
        .then((d) => { if (gen === this.generation) this.paintDetails(app, d); })
        .catch(() => { /* the stream's state tells about a lost server */ })
        .finally(() => { this.running--; this.pump(); });
    }
  }

  paintDetails(app, d) {
    const row = this.rows.get(app);
    if (!row) return;
    row.cells[3].textContent = seconds(d.response_time);
    row.cells[4].textContent = d.error || '';
    row.cells[5].replaceChildren(strip(d.history || []));
  }
}

// strip draws the last checks as bars: up short, unavailable middling, down
// tall, so that the pattern reads without colour too.
function strip(history) {
  const last = history.slice(-HISTORY);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${HISTORY * 4} 16`);
  svg.setAttribute('class', 'strip');
  svg.setAttribute('role', 'img');
  const counts = { up: 0, down: 0, unavailable: 0 };
  const offset = HISTORY - last.length;
  last.forEach((e, i) => {
    counts[e.status] = (counts[e.status] || 0) + 1;
    const hgt = e.status === 'up' ? 6 : e.status === 'down' ? 16 : 11;
    const r = document.createElementNS(SVG, 'rect');
    r.setAttribute('x', (offset + i) * 4);
    r.setAttribute('y', 16 - hgt);
    r.setAttribute('width', 3);
    r.setAttribute('height', hgt);
    r.setAttribute('class', `bar-${e.status}`);
    svg.append(r);
  });
  svg.setAttribute('aria-label', last.length === 0 ? 'no checks yet'
    : `last ${last.length} checks: ${counts.up} up, ${counts.down} down, ${counts.unavailable} unavailable`);
  return svg;
}

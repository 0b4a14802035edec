// The 90-day bars: for every service, location or app, one cell per day in
// the reader's time zone, coloured by that day's availability, from
// /api/availability?window=90d&step=1d. A day's outages (from
// /api/{apps,locations,services}/{name}/outages) open on click, Enter or
// Space.
//
// At 10,000 apps only the rows on screen exist (a grid of fixed-height
// rows over a spacer as tall as all of them), and the figures are fetched
// as rows come into view: apps a location at a time, which the API can
// filter by; locations and services in one request each. The grid is an
// ARIA grid with one tab stop: the arrow keys, Home/End and Page Up/Down
// move between days and rows, and the focused row is kept drawn while it
// is focused, so that scrolling never drops the focus.

import { getJSON } from './api.js';
import { DAYS, LEVELS, LOW_COVERAGE, lastDays, describe, overlapping, dayLabel, duration } from './days.js';
import { dateTime, percent } from './format.js';
import { h } from './dom.js';

const ROW = 24; // px: a row's height, as .bars-row in style.css
const OVERSCAN = 8; // rows drawn beyond each edge of the view
const STALE = 60000; // ms: figures older than this are fetched again when seen
const HOVER = 200; // ms a pointer rests on a day before its outages are fetched

const KINDS = [
  { id: 'service', label: 'Services', path: 'services' },
  { id: 'location', label: 'Locations', path: 'locations' },
  { id: 'app', label: 'Apps', path: 'apps' },
];
const kindInfo = (id) => KINDS.find((k) => k.id === id);

export class Bars {
  constructor(root, store) {
    this.root = root;
    this.store = store;
    this.kind = 'location';
    this.filter = '';
    this.tz = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
    this.tzRefused = false;
    this.items = []; // [{name, location}] of the kind, as filtered
    this.figures = new Map(); // kind \0 chunk -> {at, loading, rows: Map(name -> {days, availability})}
    this.outages = new Map(); // kind \0 name -> {at, list} or {loading}
    this.focus = { row: 0, day: DAYS - 1 };
    this.shown = new Map(); // row index -> row element
    this.spare = [];
    this.version = 0; // bumped when figures or outages arrive: drawn rows repaint
    this.drawn = false;
    this.scheduled = false;

    this.buttons = new Map();
    const kinds = h('div', { class: 'kinds', role: 'group', 'aria-label': 'Show the days of' });
    for (const k of KINDS) {
      const b = h('button', { type: 'button', class: 'kind', 'data-kind': k.id, 'aria-pressed': String(k.id === this.kind), text: k.label });
      b.addEventListener('click', () => this.setKind(k.id));
      this.buttons.set(k.id, b);
      kinds.append(b);
    }
    const filter = h('input', { type: 'search', id: 'bars-filter', placeholder: 'Filter by name', autocomplete: 'off' });
    filter.addEventListener('input', () => { this.filter = filter.value.trim().toLowerCase(); this.rebuild(true); });
    const legend = h('ul', { class: 'legend bars-legend', 'aria-label': 'Colours of the days' },
      ...LEVELS.map((l) => h('li', {}, h('span', { class: `swatch d-${l.id}`, 'aria-hidden': 'true' }), l.label)),
      h('li', {}, h('span', { class: 'swatch d-up low', 'aria-hidden': 'true' }), `Striped: under ${100 * LOW_COVERAGE} % observed`));
    this.count = h('p', { class: 'count', id: 'bars-count', 'aria-live': 'polite' });
    this.spacer = h('div', { class: 'bars-spacer' });
    this.grid = h('div', {
      class: 'bars', id: 'bars-grid', role: 'grid', 'aria-label': 'Availability per day, last 90 days', 'aria-colcount': String(DAYS + 2),
      'aria-describedby': 'bars-help',
    }, this.spacer);
    const help = h('p', { class: 'hint', id: 'bars-help', text: 'Arrow keys move between days and rows; Enter or Space lists the day\'s outages.' });
    this.tip = h('div', { class: 'bars-tip', 'aria-hidden': 'true' });
    this.tip.hidden = true;
    this.day = h('div', { class: 'bars-day', id: 'bars-day', role: 'region', 'aria-labelledby': 'bars-day-title' });
    this.day.hidden = true;
    root.append(h('div', { class: 'controls' }, kinds, h('label', { for: 'bars-filter', text: 'Name' }), filter),
      legend, this.count, this.grid, help, this.day);
    // Outside the panels: their containment would make it fixed to them.
    document.body.append(this.tip);

    this.grid.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.grid.addEventListener('click', (ev) => {
      const c = ev.target.closest('.day');
      if (c) this.open(Number(c.parentNode.dataset.row), Number(c.dataset.day));
    });
    this.grid.addEventListener('keydown', (ev) => this.key(ev));
    this.grid.addEventListener('focusin', (ev) => {
      const c = ev.target.closest('.day');
      if (!c) return;
      this.focus = { row: Number(c.parentNode.dataset.row), day: Number(c.dataset.day) };
      this.showTip(c);
    });
    this.grid.addEventListener('focusout', () => this.hideTip());
    this.grid.addEventListener('pointerover', (ev) => {
      const c = ev.target.closest('.day');
      if (c) this.showTip(c, HOVER);
      else this.hideTip();
    });
    this.grid.addEventListener('pointerleave', () => this.hideTip());
    this.day.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') this.back(); });
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.schedule()).observe(this.grid);

    store.subscribe((change) => {
      if (change.reset || (change.services && this.kind === 'service')) this.rebuild(false);
    });
    // The locations' days come in one answer that needs no name from the
    // store: ask for it now, beside /api/locations, not after it.
    this.load(this.chunk({}));
  }

  setKind(id) {
    if (id === this.kind) return;
    this.kind = id;
    for (const [k, b] of this.buttons) b.setAttribute('aria-pressed', String(k === id));
    this.closeDay();
    this.rebuild(true);
  }

  // showLocation brings the first app of a location into view, when the
  // bars show apps.
  showLocation(name) {
    if (this.kind !== 'app') return;
    const i = this.items.findIndex((it) => it.location === name);
    if (i < 0) return;
    this.focus = { row: i, day: this.focus.day };
    this.grid.scrollTop = i * ROW;
    this.schedule();
  }

  // rebuild takes the names of the kind from the store; top starts the
  // view at the first row.
  rebuild(top) {
    const f = this.filter;
    let all;
    if (this.kind === 'app') all = [...this.store.apps.values()].map((a) => ({ name: a.name, location: a.location }));
    else if (this.kind === 'location') all = [...this.store.locations.keys()].map((name) => ({ name }));
    else all = this.store.services.map((s) => ({ name: s.name }));
    this.items = f ? all.filter((it) => it.name.toLowerCase().includes(f)) : all;
    this.grid.setAttribute('aria-rowcount', String(this.items.length));
    this.spacer.style.height = `${this.items.length * ROW}px`;
    if (top) {
      this.grid.scrollTop = 0;
      this.focus = { row: 0, day: DAYS - 1 };
    }
    this.focus.row = Math.min(this.focus.row, Math.max(0, this.items.length - 1));
    for (const el of this.shown.values()) this.release(el);
    this.shown.clear();
    this.paintCount();
    this.schedule();
  }

  paintCount() {
    const k = kindInfo(this.kind).label.toLowerCase();
    const zone = this.tzRefused ? `the server's time zone (it does not know ${this.tz})` : (this.tz || 'the server\'s time zone');
    this.count.textContent = `${this.items.length} ${k}; days in ${zone}`;
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.render(); });
  }

  // render draws the rows in view (and the focused one), reusing the
  // elements of rows that left it, and fetches what they lack.
  render() {
    const n = this.items.length;
    const top = this.grid.scrollTop;
    const height = this.grid.clientHeight || 400;
    let first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + height) / ROW) + OVERSCAN);
    const focused = this.grid.contains(document.activeElement);
    if (!focused && n > 0 && (this.focus.row < first || this.focus.row >= last)) {
      // The view moved away from the tab stop: put it in view.
      this.focus.row = Math.min(n - 1, Math.max(0, Math.ceil(top / ROW)));
    }
    first = Math.min(first, n);
    const want = new Set();
    for (let i = first; i < last; i++) want.add(i);
    if (this.focus.row < n) want.add(this.focus.row);
    for (const [i, el] of this.shown) {
      if (!want.has(i)) { this.shown.delete(i); this.release(el); }
    }
    let withData = 0;
    for (const i of want) {
      let el = this.shown.get(i);
      if (!el) {
        el = this.spare.pop() || this.makeRow();
        this.shown.set(i, el);
        this.spacer.append(el);
      }
      if (this.paint(el, i)) withData++;
    }
    this.fetch(first, last);
    if (withData > 0 && !this.drawn) {
      this.drawn = true;
      performance.mark('availmon:bars');
    }
  }

  release(el) {
    el.remove();
    el.dataset.version = '';
    this.spare.push(el);
  }

  makeRow() {
    const row = h('div', { class: 'bars-row', role: 'row' }, h('div', { class: 'bars-name', role: 'rowheader' }));
    for (let d = 0; d < DAYS; d++) row.append(h('div', { class: 'day', role: 'gridcell', tabindex: '-1', 'data-day': String(d) }));
    row.append(h('div', { class: 'bars-avail', role: 'gridcell' }));
    return row;
  }

  // paint fills a row element for row i; it returns whether the row has
  // its figures.
  paint(el, i) {
    const it = this.items[i];
    const f = this.rowFigures(it);
    const o = this.outages.get(`${this.kind}\0${it.name}`);
    const version = `${this.version}/${i}/${this.focus.row === i ? this.focus.day : -1}`;
    if (el.dataset.version === version) return !!f;
    el.dataset.version = version;
    el.dataset.row = String(i);
    el.dataset.name = it.name;
    el.setAttribute('aria-rowindex', String(i + 1));
    el.style.transform = `translateY(${i * ROW}px)`;
    const head = el.firstChild;
    head.textContent = it.name;
    if (it.location) head.append(h('span', { class: 'muted', text: ` ${it.location}` }));
    const cells = el.children;
    for (let d = 0; d < DAYS; d++) {
      const c = cells[d + 1];
      const day = f && f.days[d - (DAYS - f.days.length)];
      c.tabIndex = this.focus.row === i && this.focus.day === d ? 0 : -1;
      if (!day) {
        c.className = f ? 'day d-none' : 'day d-loading';
        c.setAttribute('aria-label', f ? 'Before the record' : 'Loading');
        continue;
      }
      c.className = `day d-${day.level}${day.low ? ' low' : ''}`;
      c.setAttribute('aria-label', describe(day, o && o.list ? overlapping(o.list, day).length : undefined));
    }
    cells[DAYS + 1].textContent = f ? percent(f.availability) : '…';
    return !!f;
  }

  rowFigures(it) {
    const e = this.figures.get(this.chunk(it));
    return e && e.rows ? e.rows.get(it.name) : undefined;
  }

  // chunk names the request that holds an item's figures.
  chunk(it) {
    return `${this.kind}\0${this.kind === 'app' ? it.location : ''}`;
  }

  // fetch asks for the figures of rows [first, last) not had yet, or had
  // but stale.
  fetch(first, last) {
    const now = Date.now();
    const asked = new Set();
    for (let i = first; i < last; i++) {
      const it = this.items[i];
      const key = this.chunk(it);
      if (asked.has(key)) continue;
      asked.add(key);
      const e = this.figures.get(key);
      if (e && (e.loading || now - e.at < STALE)) continue;
      this.load(key, it.location);
    }
  }

  async load(key, location) {
    const old = this.figures.get(key);
    this.figures.set(key, { ...old, loading: true });
    const kind = this.kind;
    const q = new URLSearchParams({ window: '90d', step: '1d', by: kind });
    if (kind === 'app') q.set('location', location);
    if (this.tz && !this.tzRefused) q.set('tz', this.tz);
    try {
      const d = await getJSON(`api/availability?${q}`);
      const rows = new Map();
      for (const it of d.items) rows.set(it.name, { days: lastDays(d.steps, it.steps), availability: it.availability });
      this.figures.set(key, { at: Date.now(), rows });
    } catch (err) {
      if (q.has('tz') && /\btz\b/.test(err.message)) {
        // A zone this browser knows and the server does not: its days
        // are the server's then, and the count says so.
        this.tzRefused = true;
        this.figures.clear();
        this.paintCount();
      } else {
        this.figures.set(key, { ...old, at: Date.now(), loading: false });
        this.count.textContent = `The days could not be loaded: ${err.message}`;
      }
    }
    this.version++;
    this.schedule();
  }

  key(ev) {
    const c = ev.target.closest('.day');
    if (!c) return;
    let { row, day } = this.focus;
    const page = Math.max(1, Math.floor(this.grid.clientHeight / ROW) - 1);
    switch (ev.key) {
      case 'ArrowRight': day++; break;
      case 'ArrowLeft': day--; break;
      case 'ArrowDown': row++; break;
      case 'ArrowUp': row--; break;
      case 'PageDown': row += page; break;
      case 'PageUp': row -= page; break;
      case 'Home': if (ev.ctrlKey) row = 0; else day = 0; break;
      case 'End': if (ev.ctrlKey) row = this.items.length - 1; else day = DAYS - 1; break;
      case 'Enter': case ' ': ev.preventDefault(); this.open(row, day); return;
      default: return;
    }
    ev.preventDefault();
    this.moveTo(row, day);
  }

  // moveTo puts the tab stop, and the focus, on a day of a row, scrolling
  // the row into view.
  moveTo(row, day) {
    row = Math.max(0, Math.min(this.items.length - 1, row));
    day = Math.max(0, Math.min(DAYS - 1, day));
    this.focus = { row, day };
    const g = this.grid;
    if (row * ROW < g.scrollTop) g.scrollTop = row * ROW;
    else if ((row + 1) * ROW > g.scrollTop + g.clientHeight) g.scrollTop = (row + 1) * ROW - g.clientHeight;
    this.render();
    const c = this.cell(row, day);
    if (c) c.focus();
  }

  cell(row, day) {
    const el = this.shown.get(row);
    return el ? el.children[day + 1] : null;
  }

  showTip(c, delay = 0) {
    const row = Number(c.parentNode.dataset.row);
    const it = this.items[row];
    if (!it) return;
    clearTimeout(this.tipTimer);
    this.tipTimer = setTimeout(() => this.loadOutages(it), delay);
    this.tip.textContent = c.getAttribute('aria-label');
    this.tip.hidden = false;
    const r = c.getBoundingClientRect();
    const w = this.tip.offsetWidth;
    this.tip.style.left = `${Math.max(4, Math.min(window.innerWidth - w - 4, r.left + r.width / 2 - w / 2))}px`;
    this.tip.style.top = `${r.bottom + 6}px`;
    this.tipCell = c;
  }

  hideTip() {
    clearTimeout(this.tipTimer);
    this.tip.hidden = true;
    this.tipCell = null;
  }

  // loadOutages fetches an item's outages over the 90 days once a minute
  // at most, for the tooltips' counts.
  async loadOutages(it) {
    const key = `${this.kind}\0${it.name}`;
    const o = this.outages.get(key);
    const f = this.rowFigures(it);
    if (!f || (o && (o.loading || Date.now() - o.at < STALE))) return;
    this.outages.set(key, { ...o, loading: true });
    try {
      const list = await this.fetchOutages(it, f.days[0].start, f.days[f.days.length - 1].end);
      this.outages.set(key, { at: Date.now(), list });
    } catch {
      this.outages.set(key, { ...o, at: Date.now(), loading: false });
    }
    this.version++;
    this.render();
    if (this.tipCell && this.tipCell.isConnected) this.tip.textContent = this.tipCell.getAttribute('aria-label');
  }

  async fetchOutages(it, from, to) {
    const q = new URLSearchParams({ from, to });
    const d = await getJSON(`api/${kindInfo(this.kind).path}/${encodeURIComponent(it.name)}/outages?${q}`);
    return d.outages;
  }

  // open lists a day's outages below the grid and moves the focus to the
  // list's heading; Escape or its button brings it back to the day.
  async open(row, day) {
    const it = this.items[row];
    const f = it && this.rowFigures(it);
    const d = f && f.days[day - (DAYS - f.days.length)];
    if (!d) return;
    this.focus = { row, day };
    this.opened = { kind: this.kind, name: it.name, row, day };
    const title = h('h3', { id: 'bars-day-title', tabindex: '-1', text: `Outages of ${it.name} on ${dayLabel(d)}` });
    const body = h('div', {}, h('p', { class: 'hint', text: 'Loading…' }));
    const back = h('button', { type: 'button', class: 'more', text: 'Back to the days' });
    back.addEventListener('click', () => this.back());
    this.day.replaceChildren(title, h('p', { class: 'summary', text: describe(d) }), body, back);
    this.day.dataset.name = it.name;
    this.day.dataset.day = d.start;
    delete this.day.dataset.count; // set once the list is in
    this.day.hidden = false;
    title.focus();
    let list;
    try {
      list = await this.fetchOutages(it, d.start, d.end);
    } catch (err) {
      body.replaceChildren(h('p', { class: 'hint', text: `The outages could not be loaded: ${err.message}` }));
      return;
    }
    if (this.opened?.name !== it.name || this.day.dataset.day !== d.start) return;
    body.replaceChildren(list.length === 0
      ? h('p', { class: 'hint', text: 'No outages that day.' })
      : h('ul', { class: 'outages', 'aria-label': `${list.length} outage${list.length === 1 ? '' : 's'}` }, ...list.map(outageItem)));
    this.day.dataset.count = String(list.length);
  }

  back() {
    if (!this.opened || this.opened.kind !== this.kind) { this.closeDay(); return; }
    const { row, day } = this.opened;
    this.closeDay();
    this.moveTo(row, day);
  }

  closeDay() {
    this.opened = null;
    this.day.hidden = true;
    delete this.day.dataset.count;
    this.day.replaceChildren();
  }
}

function outageItem(o) {
  const now = Date.now();
  const start = Date.parse(o.start);
  const when = `${dateTime(start, now)} – ${o.ongoing ? 'ongoing' : dateTime(Date.parse(o.end), now)}`;
  const notes = [`${duration(o.duration_seconds)} down`];
  if (o.extent) notes.push(o.extent === 'full' ? 'every app down' : 'some apps down');
  if (o.maintenance) notes.push('partly in maintenance');
  if (o.approximate) notes.push(`approximate: ${o.count} changes in 15 minutes`);
  return h('li', { 'data-start': o.start }, h('span', { class: 'when', text: when }), ` · ${notes.join(' · ')}`);
}

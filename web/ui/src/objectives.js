// The objectives panel: /api/objectives as a table (attainment, the error
// budget left as a bar, the burn rate over the last hour, the state),
// sortable by each column; selecting an objective draws the course of its
// budget over the window from /api/objectives/{name}. A server without
// objectives (404, or none configured) shows no panel.

import { getJSON } from './api.js';
import { h } from './dom.js';

const POLL = 30000;
const SVG = 'http://www.w3.org/2000/svg';
const W = 360; const H = 90; const PAD = 4;

const STATES = { ok: 'OK', at_risk: 'At risk', breached: 'Breached' };
const STATE_ORDER = { breached: 0, at_risk: 1, ok: 2 };

const COLUMNS = [
  { key: 'name', label: 'Objective', value: (o) => o.name },
  { key: 'target', label: 'Target', num: true, value: (o) => o.target },
  { key: 'attainment', label: 'Attainment', num: true, value: (o) => o.attainment ?? -Infinity },
  { key: 'budget', label: 'Budget left', num: true, value: (o) => o.error_budget?.remaining_ratio ?? -Infinity },
  { key: 'burn', label: 'Burn (1h)', num: true, value: (o) => o.burn_rates?.['1h'] ?? -Infinity },
  { key: 'state', label: 'State', value: (o) => STATE_ORDER[o.state] ?? 3 },
];

export function ratio(v, digits = 2) {
  return v == null ? '—' : `${(100 * v).toFixed(digits)} %`;
}

// sortObjectives orders a copy of list by column key, dir 1 or -1, by name
// within equal values.
export function sortObjectives(list, key, dir) {
  const col = COLUMNS.find((c) => c.key === key);
  return [...list].sort((a, b) => {
    const x = col.value(a); const y = col.value(b);
    if (x < y) return -dir;
    if (x > y) return dir;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

export class Objectives {
  constructor(root) {
    this.root = root;
    root.hidden = true;
    this.list = [];
    this.sort = { key: 'state', dir: 1 };
    this.selected = null;
    this.heads = new Map();
    const headRow = h('tr');
    for (const c of COLUMNS) {
      const b = h('button', { type: 'button', class: 'sort', text: c.label });
      b.addEventListener('click', () => this.sortBy(c.key));
      const th = h('th', { scope: 'col', class: c.num ? 'num' : '', 'data-key': c.key }, b);
      this.heads.set(c.key, th);
      headRow.append(th);
    }
    this.tbody = h('tbody');
    this.count = h('p', { class: 'count', id: 'objectives-count', 'aria-live': 'polite' });
    this.chart = h('div', { class: 'objective-chart', id: 'objective-chart', 'aria-live': 'polite' });
    root.append(this.count, h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Objectives table' },
      h('table', { class: 'objectives', id: 'objective-table' },
        h('caption', { class: 'visually-hidden', text: 'Objectives with their attainment, error budget left, burn rate and state; select one to see its budget over the window' }),
        h('thead', {}, headRow), this.tbody)), this.chart);
    this.tbody.addEventListener('click', (ev) => {
      const b = ev.target.closest('button.obj');
      if (b) this.select(b.dataset.name);
    });
    this.showSort();
    this.refresh();
    setInterval(() => this.refresh(), POLL);
  }

  async refresh() {
    let answer = 'list';
    try {
      this.list = await getJSON('api/objectives');
    } catch (err) {
      // 404: this server has no objectives. Another error: keep what is
      // shown until the next poll.
      if (err.status !== 404) return;
      this.list = [];
      answer = 'none';
    }
    if (!Array.isArray(this.list)) this.list = [];
    if (answer === 'list' && this.list.length === 0) answer = 'empty';
    this.root.dataset.answer = answer; // what the last poll found
    this.root.hidden = this.list.length === 0;
    if (this.root.hidden) return;
    this.render();
    if (this.selected) this.loadChart(this.selected);
  }

  sortBy(key) {
    this.sort = { key, dir: this.sort.key === key ? -this.sort.dir : 1 };
    this.showSort();
    this.render();
  }

  showSort() {
    for (const [key, th] of this.heads) {
      if (key === this.sort.key) th.setAttribute('aria-sort', this.sort.dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
  }

  render() {
    const rows = sortObjectives(this.list, this.sort.key, this.sort.dir).map((o) => this.row(o));
    this.tbody.replaceChildren(...rows);
    const n = { ok: 0, at_risk: 0, breached: 0 };
    for (const o of this.list) n[o.state] = (n[o.state] || 0) + 1;
    this.count.textContent = `${this.list.length} objective${this.list.length === 1 ? '' : 's'}: `
      + Object.entries(n).filter(([, c]) => c > 0).map(([s, c]) => `${c} ${(STATES[s] || s).toLowerCase()}`).join(', ');
  }

  row(o) {
    const left = o.error_budget?.remaining_ratio;
    const fill = left == null ? 0 : Math.max(0, Math.min(1, left));
    const button = h('button', { type: 'button', class: 'obj', 'data-name': o.name, 'aria-pressed': String(o.name === this.selected), text: o.name });
    const burn = o.burn_rates?.['1h'];
    const bar = h('span');
    bar.style.width = `${(100 * fill).toFixed(1)}%`; // CSSOM: the page's CSP refuses style attributes
    const tr = h('tr', { 'data-objective': o.name, 'data-state': o.state, class: o.name === this.selected ? 'selected' : '' },
      h('th', { scope: 'row' }, button),
      h('td', { class: 'num', text: ratio(o.target, 3) }),
      h('td', { class: 'num', text: ratio(o.attainment, 3) }),
      h('td', { class: 'num' }, h('span', { class: `budget${left != null && left <= 0 ? ' spent' : ''}`, 'aria-hidden': 'true' }, bar),
        ` ${ratio(left, 1)}`),
      h('td', { class: 'num', text: burn == null ? '—' : `${burn.toFixed(2)}×` }),
      h('td', {}, h('span', { class: `status obj-${o.state}`, text: STATES[o.state] || o.state })));
    return tr;
  }

  select(name) {
    this.selected = this.selected === name ? null : name;
    this.render();
    if (this.selected) this.loadChart(name);
    else this.chart.replaceChildren();
  }

  async loadChart(name) {
    let d;
    try {
      d = await getJSON(`api/objectives/${encodeURIComponent(name)}`);
    } catch (err) {
      this.chart.replaceChildren(h('p', { class: 'hint', text: `The budget of ${name} could not be loaded: ${err.message}` }));
      return;
    }
    if (this.selected !== name) return;
    this.chart.replaceChildren(h('h3', { text: `Error budget of ${name} over its window (${d.window})` }), budgetChart(d.budget_series || []));
    this.chart.dataset.name = name;
  }
}

function el(name, attrs = {}) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// budgetChart draws remaining_ratio over time, the zero line marked: a
// budget below it is overspent.
export function budgetChart(series) {
  const pts = series.filter((p) => p.remaining_ratio != null);
  const label = pts.length === 0 ? 'No budget figures yet'
    : `Error budget left from ${ratio(pts[0].remaining_ratio, 1)} to ${ratio(pts[pts.length - 1].remaining_ratio, 1)} over ${pts.length} days`;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'budget-chart', role: 'img', 'aria-label': label });
  if (pts.length === 0) return svg;
  const lo = Math.min(0, ...pts.map((p) => p.remaining_ratio));
  const hi = Math.max(1, ...pts.map((p) => p.remaining_ratio));
  const t0 = Date.parse(pts[0].time); const t1 = Date.parse(pts[pts.length - 1].time);
  const x = (t) => PAD + (t1 === t0 ? 0 : ((t - t0) * (W - 2 * PAD)) / (t1 - t0));
  const y = (v) => PAD + ((hi - v) * (H - 2 * PAD)) / (hi - lo);
  svg.append(el('line', { class: 'grid', x1: PAD, x2: W - PAD, y1: y(0), y2: y(0) }));
  svg.append(el('polyline', { class: 'line', points: pts.map((p) => `${x(Date.parse(p.time)).toFixed(1)},${y(p.remaining_ratio).toFixed(1)}`).join(' ') }));
  // A line through one point has no length and draws nothing: a window
  // that has just begun shows its one figure as a dot.
  if (pts.length === 1) svg.append(el('circle', { class: 'dot', cx: x(t0).toFixed(1), cy: y(pts[0].remaining_ratio).toFixed(1), r: 3 }));
  return svg;
}

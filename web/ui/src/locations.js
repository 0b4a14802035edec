// The list of locations: a table that can be sorted by any column and
// filtered by name and state (or by having apps in maintenance). A change touches only the rows of the
// locations it concerns; rows are re-ordered only when the order can have
// changed.

import { LOCATION_STATES, stateIcon, stateInfo } from './states.js';
import { availability, percent } from './format.js';
import { h } from './dom.js';

const COLUMNS = [
  { key: 'state', label: 'State', num: false },
  { key: 'name', label: 'Location', num: false },
  { key: 'total', label: 'Apps', num: true },
  { key: 'up', label: 'Up', num: true },
  { key: 'down', label: 'Down', num: true },
  { key: 'unavailable', label: 'Unavail.', num: true },
  { key: 'maintenance', label: 'Maint.', num: true },
  { key: 'availability', label: 'Avail.', num: true },
];

const MAINTENANCE = 'maintenance'; // the state filter's choice of locations with apps in maintenance

const STATE_ORDER = { down: 0, partial: 1, unknown: 2, up: 3 };

function sortValue(l, key) {
  switch (key) {
    case 'state': return STATE_ORDER[l.state];
    case 'name': return l.name;
    case 'total': return l.apps.length;
    case 'availability': return availability(l.up, l.down) ?? -1;
    default: return l[key];
  }
}

export class LocationList {
  constructor(root, store, onSelect) {
    this.store = store;
    this.onSelect = onSelect;
    this.rows = new Map(); // name -> {tr, cells, state}
    this.sort = { key: 'state', dir: 1 };
    this.filter = { text: '', state: '' };
    this.selected = null;

    const text = h('input', { type: 'search', id: 'loc-filter', placeholder: 'Filter by name', autocomplete: 'off' });
    const state = h('select', { id: 'loc-state' }, h('option', { value: '', text: 'Any state' }),
      ...LOCATION_STATES.map((s) => h('option', { value: s.id, text: s.label })),
      h('option', { value: MAINTENANCE, text: 'In maintenance' }));
    text.addEventListener('input', () => { this.filter.text = text.value.trim().toLowerCase(); this.arrange(); });
    state.addEventListener('change', () => { this.filter.state = state.value; this.arrange(); });
    const controls = h('div', { class: 'controls' },
      h('label', { for: 'loc-filter', text: 'Name' }), text,
      h('label', { for: 'loc-state', text: 'State' }), state);

    this.heads = new Map();
    const headRow = h('tr');
    for (const c of COLUMNS) {
      const b = h('button', { type: 'button', class: 'sort', text: c.label });
      b.addEventListener('click', () => this.sortBy(c.key));
      const th = h('th', { scope: 'col', class: c.num ? 'num' : '' }, b);
      this.heads.set(c.key, th);
      headRow.append(th);
    }
    this.tbody = h('tbody');
    this.count = h('p', { class: 'count', 'aria-live': 'polite' });
    const table = h('table', { class: 'locations', id: 'location-table' },
      h('caption', { class: 'visually-hidden', text: 'Locations with their app counts; select one to see its apps' }),
      h('thead', {}, headRow), this.tbody);
    root.append(controls, this.count, h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Locations table' }, table));

    this.tbody.addEventListener('click', (ev) => {
      const b = ev.target.closest('button.loc');
      if (b) this.onSelect(b.dataset.name);
    });
    store.subscribe((change) => this.update(change));
    this.showSort();
  }

  sortBy(key) {
    this.sort = { key, dir: this.sort.key === key ? -this.sort.dir : 1 };
    this.showSort();
    this.arrange();
  }

  showSort() {
    for (const [key, th] of this.heads) {
      if (key === this.sort.key) th.setAttribute('aria-sort', this.sort.dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
  }

  update({ reset, locations }) {
    if (reset) {
      this.tbody.replaceChildren();
      this.rows.clear();
      for (const l of this.store.locations.values()) this.rows.set(l.name, this.makeRow(l));
      this.arrange();
      this.select(this.selected);
      return;
    }
    if (locations.size === 0) return;
    for (const name of locations) this.paint(this.rows.get(name), this.store.locations.get(name));
    // Sorted by name with no state filter, no row can have moved.
    if (this.sort.key !== 'name' || this.filter.state) this.arrange();
  }

  makeRow(l) {
    const cells = COLUMNS.map((c) => h('td', { class: c.num ? 'num' : '' }));
    const button = h('button', { type: 'button', class: 'loc', 'data-name': l.name, 'aria-pressed': 'false', text: l.name });
    cells[1] = h('th', { scope: 'row' }, button);
    const tr = h('tr', { 'data-name': l.name }, ...cells);
    const row = { tr, cells, button, state: null };
    cells[2].textContent = l.apps.length;
    this.paint(row, l);
    return row;
  }

  paint(row, l) {
    if (!row) return;
    const c = row.cells;
    if (row.state !== l.state) {
      row.state = l.state;
      row.tr.dataset.state = l.state;
      // The shape says it; the words are for screen readers and tooltips.
      c[0].title = stateInfo(l.state).label;
      c[0].replaceChildren(stateIcon(l.state), h('span', { class: 'visually-hidden', text: stateInfo(l.state).label }));
    }
    c[3].textContent = l.up;
    c[4].textContent = l.down;
    c[5].textContent = l.unavailable;
    c[6].textContent = l.maintenance;
    c[7].textContent = percent(availability(l.up, l.down));
    if (l.maintenance > 0) row.tr.dataset.maintenance = l.maintenance;
    else delete row.tr.dataset.maintenance;
  }

  // arrange filters and orders the rows, moving only the rows themselves.
  arrange() {
    const { key, dir } = this.sort;
    const { text, state } = this.filter;
    const shown = [];
    for (const l of this.store.locations.values()) {
      if (text && !l.name.toLowerCase().includes(text)) continue;
      if (state === MAINTENANCE ? l.maintenance === 0 : state && l.state !== state) continue;
      shown.push(l);
    }
    shown.sort((a, b) => {
      const x = sortValue(a, key); const y = sortValue(b, key);
      if (x < y) return -dir;
      if (x > y) return dir;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    const current = this.tbody.children;
    let same = current.length === shown.length;
    for (let i = 0; same && i < shown.length; i++) same = current[i] === this.rows.get(shown[i].name).tr;
    if (!same) this.tbody.replaceChildren(...shown.map((l) => this.rows.get(l.name).tr));
    this.count.textContent = `${shown.length} of ${this.store.locations.size} locations`;
  }

  select(name) {
    const old = this.rows.get(this.selected);
    if (old) { old.tr.classList.remove('selected'); old.button.setAttribute('aria-pressed', 'false'); }
    this.selected = name;
    const row = this.rows.get(name);
    if (row) { row.tr.classList.add('selected'); row.button.setAttribute('aria-pressed', 'true'); }
  }
}

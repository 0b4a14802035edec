// The services panel: one row per service of /api/services with its state,
// how many of its locations are up, its quorum and its apps. A service's
// button opens a row below it with its locations and their apps, from
// /api/services/{name}; a location there selects it on the map.

import { APP_STATUS_LABEL } from './states.js';
import { h } from './dom.js';

export const SERVICE_STATES = {
  up: 'Up', degraded: 'Degraded', down: 'Down', unavailable: 'Unavailable',
};

export class ServicesPanel {
  constructor(root, store, sync, onSelect) {
    this.store = store;
    this.sync = sync;
    this.onSelect = onSelect;
    this.rows = new Map(); // name -> {tr, cells, button, detail, key, detailKey}
    this.made = 0; // rows made, for unique ids
    this.summary = h('p', { class: 'count', 'aria-live': 'polite', id: 'services-count', text: 'Loading…' });
    this.tbody = h('tbody');
    const head = h('tr', {}, ...[['Service', ''], ['State', ''], ['Locations up', 'num'], ['Quorum', 'num'], ['Apps', 'num']]
      .map(([t, c]) => h('th', { scope: 'col', class: c, text: t })));
    this.table = h('table', { class: 'services', id: 'service-table' },
      h('caption', { class: 'visually-hidden', text: 'Services with their state; open one to see its locations and apps' }),
      h('thead', {}, head), this.tbody);
    this.wrap = h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Services table' }, this.table);
    this.wrap.hidden = true;
    root.append(this.summary, this.wrap);

    this.tbody.addEventListener('click', (ev) => {
      const loc = ev.target.closest('button.loc');
      if (loc) {
        this.onSelect(loc.dataset.name);
        return;
      }
      const b = ev.target.closest('button.svc');
      if (b) this.toggle(b.dataset.name);
    });
    store.subscribe((change) => { if (change.services || change.reset) this.render(); });
  }

  toggle(name) {
    const row = this.rows.get(name);
    if (!row) return;
    const open = row.button.getAttribute('aria-expanded') !== 'true';
    row.button.setAttribute('aria-expanded', String(open));
    row.detail.hidden = !open;
    if (open) row.detail.firstChild.replaceChildren(h('p', { class: 'hint', text: 'Loading…' }));
    row.detailKey = '';
    this.sync.show(name, open);
  }

  render() {
    const list = this.store.services;
    const count = { up: 0, degraded: 0, down: 0, unavailable: 0 };
    const seen = new Set();
    const order = [];
    for (const s of list) {
      count[s.status] = (count[s.status] || 0) + 1;
      seen.add(s.name);
      let row = this.rows.get(s.name);
      if (!row) {
        row = this.makeRow(s.name);
        this.rows.set(s.name, row);
      }
      this.paint(row, s);
      this.paintDetail(row, this.store.serviceDetails.get(s.name));
      order.push(row.tr, row.detail);
    }
    for (const [name, row] of this.rows) {
      if (seen.has(name)) continue;
      this.rows.delete(name);
      if (row.button.getAttribute('aria-expanded') === 'true') this.sync.show(name, false);
    }
    const current = this.tbody.children;
    let same = current.length === order.length;
    for (let i = 0; same && i < order.length; i++) same = current[i] === order[i];
    if (!same) this.tbody.replaceChildren(...order);
    this.wrap.hidden = list.length === 0;
    const parts = Object.entries(count).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${SERVICE_STATES[k].toLowerCase()}`);
    this.summary.textContent = list.length === 0 ? 'No services are configured.'
      : `${list.length} service${list.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
  }

  makeRow(name) {
    const id = `service-detail-${++this.made}`;
    const button = h('button', {
      type: 'button', class: 'svc', 'data-name': name, 'aria-expanded': 'false', 'aria-controls': id, text: name,
    });
    const cells = [h('th', { scope: 'row' }, button), h('td'), h('td', { class: 'num' }), h('td', { class: 'num' }), h('td', { class: 'num' })];
    const tr = h('tr', { 'data-service': name }, ...cells);
    const detail = h('tr', { class: 'svc-detail', id, 'data-service-detail': name }, h('td', { colspan: '5' }));
    detail.hidden = true;
    return { tr, cells, button, detail, key: '', detailKey: '' };
  }

  paint(row, s) {
    const key = JSON.stringify([s.status, s.locations_up, s.locations_total, s.min_up, s.apps_count]);
    if (key === row.key) return;
    row.key = key;
    row.tr.dataset.status = s.status;
    row.cells[1].replaceChildren(h('span', { class: `status svc-${s.status}`, text: SERVICE_STATES[s.status] || s.status }));
    row.cells[2].textContent = `${s.locations_up} of ${s.locations_total}`;
    row.cells[3].textContent = s.min_up;
    row.cells[4].textContent = s.apps_count;
  }

  // paintDetail lists the service's locations, each with its state and
  // apps, an app in maintenance marked so.
  paintDetail(row, d) {
    if (!d || row.detail.hidden) return;
    const key = JSON.stringify(d.locations);
    if (key === row.detailKey) return;
    row.detailKey = key;
    const list = h('ul', { class: 'svc-locations', 'aria-label': `Locations of ${d.name}` });
    for (const l of d.locations) {
      const apps = h('span', { class: 'svc-apps' });
      l.apps.forEach((a, i) => {
        if (i > 0) apps.append(', ');
        apps.append(h('span', {
          class: `app status-${a.status}${a.maintenance ? ' in-maint' : ''}`, 'data-app': a.name,
          text: `${a.name} (${(APP_STATUS_LABEL[a.status] || a.status).toLowerCase()}${a.maintenance ? ', in maintenance' : ''})`,
        }));
      });
      list.append(h('li', { 'data-location': l.name, 'data-status': l.status },
        h('span', { class: `status status-${l.status}`, text: APP_STATUS_LABEL[l.status] || l.status }), ' ',
        h('button', { type: 'button', class: 'loc', 'data-name': l.name, text: l.name }), ': ', apps));
    }
    row.detail.firstChild.replaceChildren(list);
  }
}

// The maintenance panel: which apps are in maintenance now, by location
// (a location selects it on the map), and the windows of /api/maintenance
// that are open now or will open, with whom they cover and when. Windows
// that are over are counted, not listed.

import { h } from './dom.js';
import { current, phase, schedule, targets, when } from './windows.js';

const PHASE_LABEL = { open: 'Open now', upcoming: 'Upcoming' };

export class MaintenancePanel {
  constructor(root, store, onSelect) {
    this.store = store;
    this.onSelect = onSelect;
    this.nowText = h('p', { class: 'summary', id: 'maint-now', 'aria-live': 'polite', text: 'Loading…' });
    this.nowList = h('ul', { class: 'maint-locations', id: 'maint-locations', 'aria-label': 'Locations with apps in maintenance now' });
    this.tbody = h('tbody');
    const head = h('tr', {}, ...['Window', 'When', 'Covers']
      .map((t) => h('th', { scope: 'col', text: t })));
    const table = h('table', { class: 'windows', id: 'maint-table' },
      h('caption', { class: 'visually-hidden', text: 'Maintenance windows open now or upcoming' }),
      h('thead', {}, head), this.tbody);
    this.wrap = h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Maintenance windows' }, table);
    this.windowsText = h('p', { class: 'count', id: 'maint-count' });
    this.windowsKey = null;
    root.append(this.nowText, this.nowList, h('h3', { text: 'Windows' }), this.windowsText, this.wrap);

    this.nowList.addEventListener('click', (ev) => {
      const b = ev.target.closest('button.loc');
      if (b) this.onSelect(b.dataset.name);
    });
    store.subscribe((change) => {
      if (change.reset || change.maintenance) this.paintNow();
      if (change.windows) this.paintWindows();
    });
  }

  // paintNow lists the apps in maintenance by location, as the store's
  // flags say.
  paintNow() {
    const byLoc = new Map();
    let apps = 0;
    for (const a of this.store.apps.values()) {
      if (!a.maintenance) continue;
      apps++;
      if (!byLoc.has(a.location)) byLoc.set(a.location, []);
      byLoc.get(a.location).push(a.name);
    }
    const locs = [...byLoc.keys()].sort();
    this.nowText.textContent = apps === 0 ? 'No app is in maintenance now.'
      : `In maintenance now: ${apps} app${apps === 1 ? '' : 's'} in ${locs.length} location${locs.length === 1 ? '' : 's'}.`;
    this.nowList.replaceChildren(...locs.map((l) => h('li', { 'data-location': l },
      h('button', { type: 'button', class: 'loc', 'data-name': l, text: l }), `: ${byLoc.get(l).sort().join(', ')}`)));
    this.nowList.hidden = apps === 0;
  }

  paintWindows() {
    const now = this.store.serverNow;
    const { shown, over } = current(this.store.windows);
    const rows = shown.map((w) => ({
      id: w.id, phase: phase(w), source: w.source, covers: targets(w), schedule: schedule(w, now),
      when: when(w, now), comment: w.comment || '',
    }));
    const key = JSON.stringify([rows, over]);
    if (key === this.windowsKey) return;
    this.windowsKey = key;
    this.tbody.replaceChildren(...rows.map((r) => h('tr', { 'data-window': r.id, 'data-phase': r.phase },
      h('th', { scope: 'row', class: 'wrap' }, r.id, h('span', { class: 'muted', text: r.source === 'config' ? ' (configured)' : ' (API)' }),
        ...(r.comment ? [h('br'), h('span', { class: 'comment', text: r.comment })] : [])),
      h('td', { class: 'wrap' }, h('span', { class: `phase phase-${r.phase}`, text: PHASE_LABEL[r.phase] }), ' ',
        h('span', { text: r.when }), h('br'), h('span', { class: 'muted', text: r.schedule })),
      h('td', { class: 'wrap', text: r.covers }))));
    this.wrap.hidden = rows.length === 0;
    const overText = over > 0 ? ` (${over} over, not shown)` : '';
    this.windowsText.textContent = rows.length === 0 ? `No window is open or upcoming.${overText}`
      : `${rows.filter((r) => r.phase === 'open').length} open, ${rows.filter((r) => r.phase === 'upcoming').length} upcoming${overText}`;
  }
}

// The header: system status and backend connectivity from /api/status, the
// overall availability and app counts from the store (so they move with
// the stream), the scrape interval, and the state of the stream itself.

import { getJSON } from './api.js';
import { availability, percent } from './format.js';

const STATUS_POLL = 15000;

export class Header {
  // onStatus, if given, gets every /api/status answer.
  constructor(store, onStatus = () => {}) {
    this.store = store;
    this.onStatus = onStatus;
    this.el = {
      system: document.getElementById('system-status'),
      conn: document.getElementById('connectivity'),
      avail: document.getElementById('availability'),
      counts: document.getElementById('app-counts'),
      interval: document.getElementById('interval'),
      stream: document.getElementById('stream-state'),
    };
    store.subscribe((change) => {
      if (change.reset || change.locations.size > 0) this.paintCounts();
    });
    setInterval(() => this.refresh(), STATUS_POLL);
  }

  paintCounts() {
    const { up, down, unavailable, maintenance } = this.store.totals();
    this.el.avail.textContent = percent(availability(up, down));
    this.el.counts.textContent = `${up} up · ${down} down · ${unavailable} unavailable${maintenance > 0 ? ` · ${maintenance} in maintenance` : ''}`;
  }

  async refresh() {
    try {
      const [s, c] = await Promise.all([getJSON('api/status'), getJSON('api/config')]);
      badge(this.el.system, s.system_status, { healthy: 'ok', degraded: 'warn', unhealthy: 'bad' });
      badge(this.el.conn, s.prometheus_connectivity, { connected: 'ok', degraded: 'warn', disconnected: 'bad' });
      this.el.interval.textContent = c.scrape_interval;
      this.onStatus(s);
    } catch {
      // The stream reports a lost server; the next poll tries again.
    }
  }

  stream(state) {
    badge(this.el.stream, state, { live: 'ok', connecting: 'warn', disconnected: 'bad' });
  }
}

function badge(el, text, kinds) {
  el.textContent = text;
  el.className = `badge badge-${kinds[text] || 'warn'}`;
}

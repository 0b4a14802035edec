// Keeps the store's services current. /api/ws has no event for a service:
// its state follows from its apps', by rules that are the server's (the
// quorum, maintenance counting as up). So a status_update makes this fetch
// /api/services again, once for a burst of updates, and then the details
// of the services shown open; a poll catches what no update announces (a
// maintenance window opening, say).
//
// The server logs a cycle's events before it publishes the snapshot that
// holds them: an answer older than the latest update seen is asked again.

import { getEnvelope } from './api.js';

const SETTLE = 250; // ms after an update, for the rest of its cycle to arrive
const STALE_RETRY = 250; // ms, while the answer predates an update
const MAX_STALE = 40; // tries before settling for what the server has
const POLL = 30000; // ms

export class ServiceSync {
  constructor(store) {
    this.store = store;
    this.open = new Set(); // names of the services shown open
    this.minUpdate = 0; // server ms: the latest status_update seen
    this.timer = 0;
    this.running = false;
    this.again = false;
    this.stale = 0;
    this.known = false; // whether any service is configured, once asked
    setInterval(() => this.refresh(), POLL);
  }

  // updated is told the time of each status_update.
  updated(timestamp) {
    const t = Date.parse(timestamp);
    if (t > this.minUpdate) this.minUpdate = t;
    if (this.store.services.length === 0 && this.known) return; // nothing to update
    if (!this.timer && !this.running) this.timer = setTimeout(() => this.refresh(), SETTLE);
    else if (this.running) this.again = true;
  }

  // show wants a service's locations and apps (open true) or not.
  show(name, open) {
    if (open) {
      this.open.add(name);
      this.fetchDetail(name);
    } else {
      this.open.delete(name);
      this.store.setServiceDetail(name, null);
    }
  }

  async refresh() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      const { data, meta } = await getEnvelope('api/services');
      this.known = true;
      if (Date.parse(meta.last_update) < this.minUpdate && ++this.stale < MAX_STALE) {
        this.timer = setTimeout(() => this.refresh(), STALE_RETRY);
        return;
      }
      this.stale = 0;
      this.store.setServices(data);
      await Promise.all([...this.open].map((name) => this.fetchDetail(name)));
    } catch {
      // The stream's state tells about a lost server; the next update or
      // poll tries again.
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }

  async fetchDetail(name) {
    try {
      const d = (await getEnvelope(`api/services/${encodeURIComponent(name)}`)).data;
      if (this.open.has(name)) this.store.setServiceDetail(name, d);
    } catch {
      // Gone after a reconfiguration, or the server is away: the list
      // says so at its next fetch.
    }
  }
}

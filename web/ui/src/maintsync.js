// Keeps the store's maintenance windows and the apps' maintenance flags
// current. /api/ws has no event for a window opening or closing, nor for
// one added or deleted through the API, so this polls /api/maintenance and
// /api/status, and also wakes at the next window boundary that the
// windows' next_start and next_end announce.
//
// Which apps a window covers is the server's to say (apps, locations,
// services, labels), so the flags come from /api/apps rather than being
// worked out here. The server sets them once a cycle: after the set of
// open windows changes, the flags are fetched from a snapshot taken no
// earlier than the change was seen.

import { getEnvelope } from './api.js';
import { nextBoundary } from './windows.js';

const POLL = 10000; // ms between polls when no boundary is nearer
const RETRY = 500; // ms, at first, while waiting for a cycle after a change
const AFTER_BOUNDARY = 250; // ms past a boundary, for the server's clock to pass it too

export class MaintenanceSync {
  constructor(store) {
    this.store = store;
    this.timer = 0;
    this.running = null;
    this.again = false;
    this.activeKey = null; // the ids of the open windows last seen
    this.pendingSince = null; // server ms: flags wanted from a snapshot at or after this
    this.retry = RETRY;
  }

  // refresh polls now. force wants the flags fetched again whatever the
  // windows say (the store started over).
  refresh({ force = false } = {}) {
    if (force) this.pendingSince = Math.max(this.pendingSince ?? 0, 0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    clearTimeout(this.timer);
    this.running = this.poll()
      .catch(() => POLL) // the stream's state tells about a lost server
      .then((delay) => {
        this.running = null;
        if (this.again) {
          this.again = false;
          return this.refresh();
        }
        this.timer = setTimeout(() => this.refresh(), delay);
        return undefined;
      });
    return this.running;
  }

  // poll fetches the windows and the status and, when the flags are
  // wanted and the snapshot is recent enough, the flags. It returns the
  // delay until the next poll.
  async poll() {
    const [{ data: windows, meta }, { data: status }] = await Promise.all([
      getEnvelope('api/maintenance'), getEnvelope('api/status')]);
    const now = Date.parse(meta.timestamp);
    this.store.setWindows(windows, now);
    const key = windows.filter((w) => w.active).map((w) => w.id).sort().join('\n');
    if (key !== this.activeKey) {
      // At the first poll any snapshot will do; after a change, only one
      // from a cycle that ended once the change was seen.
      this.pendingSince = this.activeKey == null ? 0 : now;
      this.activeKey = key;
    }
    const inMaint = status.applications_maintenance || 0;
    const wanted = this.pendingSince != null || inMaint !== this.store.totals().maintenance;
    let delay = POLL;
    if (wanted) {
      const since = this.pendingSince ?? 0;
      if (Date.parse(status.last_update) >= since && await this.fetchFlags(inMaint, since)) {
        this.pendingSince = null;
        this.retry = RETRY;
      } else {
        // The next cycle is due within the scrape interval, unknown
        // here: ask often at first, then less.
        delay = this.retry;
        this.retry = Math.min(this.retry * 2, POLL);
      }
    }
    const next = nextBoundary(windows, now);
    if (next != null) delay = Math.min(delay, next - now + AFTER_BOUNDARY);
    return Math.max(delay, AFTER_BOUNDARY);
  }

  // fetchFlags sets the apps' flags from /api/apps; false when its
  // snapshot is older than since.
  async fetchFlags(inMaint, since) {
    const names = new Set();
    if (inMaint > 0 || this.store.totals().maintenance > 0) {
      const { data, meta } = await getEnvelope('api/apps');
      if (Date.parse(meta.last_update) < since) return false;
      for (const a of data) if (a.maintenance) names.add(a.name);
    }
    this.store.setMaintenance(names);
    return true;
  }
}

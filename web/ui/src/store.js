// The one store the views render from. /api/locations fills it; /api/ws
// status_update messages change it, and the end of each connection's
// snapshot tells which apps have not been checked yet (those it had no
// message about). Changes are collected and handed to the
// views once per animation frame, as the set of locations and apps that
// changed, so that 1,000 changes in one cycle cost one render of what they
// touched and nothing else.
//
// The services and the maintenance windows have no events of their own:
// the syncs (servicesync.js, maintsync.js) fetch them and put them here,
// and the views render them from here like the rest. An app in maintenance
// counts in its location's `maintenance`, not in up, down or unavailable,
// as the API counts it.

import { locationState } from './states.js';

export class Store {
  constructor() {
    this.apps = new Map(); // name -> {name, location, status, lastCheck, unchecked, maintenance, seen}
    this.locations = new Map(); // name -> {name, latitude, longitude, apps, up, down, unavailable, maintenance, state}
    this.services = []; // /api/services
    this.serviceDetails = new Map(); // name -> /api/services/{name}, for the services shown open
    this.windows = []; // /api/maintenance
    this.serverNow = 0; // the server's time of the windows' answer, ms
    this.signature = '';
    this.listeners = new Set();
    this.dirtyLocations = new Set();
    this.dirtyApps = new Set();
    this.dirty = { services: false, windows: false, maintenance: false };
    this.reset = false;
    this.scheduled = false;
    this.applied = 0; // status updates applied since the page loaded
    this.connection = 0; // counts the stream's connections (begin)
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  // load takes the /api/locations list. When it names the same locations
  // and apps as before, the known states are kept (the stream's snapshot
  // will refresh them); otherwise the store starts over and every view
  // redraws.
  load(locations) {
    const signature = JSON.stringify(locations.map((l) => [l.name, l.latitude, l.longitude, l.apps]));
    if (signature === this.signature) return false;
    this.signature = signature;
    this.apps.clear();
    this.locations.clear();
    for (const l of locations) {
      this.locations.set(l.name, {
        name: l.name, latitude: l.latitude, longitude: l.longitude,
        apps: l.apps, up: 0, down: 0, unavailable: l.apps.length, maintenance: 0, state: 'unknown',
      });
      for (const a of l.apps) {
        // unchecked: known once a snapshot has ended without a message
        // about the app; seen: the connection that last had one.
        this.apps.set(a, {
          name: a, location: l.name, status: 'unavailable', lastCheck: null, unchecked: false, maintenance: false, seen: 0,
        });
      }
    }
    this.reset = true;
    this.schedule();
    return true;
  }

  // apply applies one status_update's data and time. It returns false when
  // the app is not known: the configuration changed, and the caller must
  // load the locations again.
  apply({ app, status, location }, timestamp) {
    const a = this.apps.get(app);
    if (!a || a.location !== location) return false;
    a.lastCheck = timestamp;
    a.unchecked = false;
    a.seen = this.connection;
    this.dirtyApps.add(app);
    this.setStatus(a, status);
    this.applied++;
    this.schedule();
    return true;
  }

  // seed takes the apps' states from /api/metrics/summary's apps_summary:
  // one response, so that the map is right before the stream's snapshot
  // (one message per app checked) has arrived.
  seed(apps) {
    for (const { name, status } of apps) {
      const a = this.apps.get(name);
      if (a) this.setStatus(a, status);
    }
    this.schedule();
  }

  // begin is called as the stream connects: the apps its snapshot tells
  // about are seen on this connection.
  begin() {
    this.connection++;
  }

  // settle is called at the end of the snapshot: an app it had no message
  // about has not been checked yet, which the API tells as unavailable with
  // no last check (an app checked before may be unchecked now: the server
  // may have started afresh).
  settle() {
    for (const a of this.apps.values()) {
      if (a.seen === this.connection || (a.unchecked && a.status === 'unavailable')) continue;
      a.unchecked = true;
      a.lastCheck = null;
      this.dirtyApps.add(a.name);
      this.setStatus(a, 'unavailable');
    }
    this.schedule();
  }

  setStatus(a, status) {
    if (a.status === status) return;
    this.move(a, () => { a.status = status; });
  }

  // move applies change to app a and moves it between its location's
  // counts.
  move(a, change) {
    const l = this.locations.get(a.location);
    l[bucket(a)]--;
    change();
    l[bucket(a)]++;
    l.state = locationState(l);
    this.dirtyLocations.add(l.name);
  }

  // setMaintenance takes the names of the apps in maintenance now (from
  // /api/apps); every other app is not.
  setMaintenance(names) {
    for (const a of this.apps.values()) {
      const on = names.has(a.name);
      if (a.maintenance === on) continue;
      this.move(a, () => { a.maintenance = on; });
      this.dirtyApps.add(a.name);
      this.dirty.maintenance = true;
    }
    this.schedule();
  }

  setServices(list) {
    this.services = list;
    const names = new Set(list.map((s) => s.name));
    for (const name of this.serviceDetails.keys()) if (!names.has(name)) this.serviceDetails.delete(name);
    this.dirty.services = true;
    this.schedule();
  }

  setServiceDetail(name, detail) {
    if (detail) this.serviceDetails.set(name, detail);
    else this.serviceDetails.delete(name);
    this.dirty.services = true;
    this.schedule();
  }

  setWindows(list, serverNow) {
    this.windows = list;
    this.serverNow = serverNow;
    this.dirty.windows = true;
    this.schedule();
  }

  totals() {
    let up = 0; let down = 0; let unavailable = 0; let maintenance = 0;
    for (const l of this.locations.values()) {
      up += l.up; down += l.down; unavailable += l.unavailable; maintenance += l.maintenance;
    }
    return { up, down, unavailable, maintenance };
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    // A hidden tab gets no animation frames; a timer keeps it current.
    if (document.hidden) setTimeout(() => this.flush(), 200);
    else requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.scheduled = false;
    const change = {
      reset: this.reset,
      locations: this.dirtyLocations,
      apps: this.dirtyApps,
      ...this.dirty,
    };
    this.reset = false;
    this.dirty = { services: false, windows: false, maintenance: false };
    this.dirtyLocations = new Set();
    this.dirtyApps = new Set();
    for (const fn of this.listeners) fn(change);
  }
}

// bucket names the count of its location an app is in.
function bucket({ status, maintenance }) {
  if (maintenance) return 'maintenance';
  if (status === 'up') return 'up';
  if (status === 'down') return 'down';
  return 'unavailable';
}

// Wires the page: one store, fed by /api/locations and the /api/ws stream
// (and, for services and maintenance, which have no events, by their syncs),
// and the views that render from it. The page only reads.

import { getJSON } from './api.js';
import { Store } from './store.js';
import { Stream } from './stream.js';
import { WorldMap } from './map.js';
import { LocationList } from './locations.js';
import { Detail } from './detail.js';
import { Header } from './header.js';
import { Chart } from './chart.js';
import { ServiceSync } from './servicesync.js';
import { ServicesPanel } from './services.js';
import { MaintenanceSync } from './maintsync.js';
import { MaintenancePanel } from './maintenance.js';
import { Bars } from './bars.js';
import { Backfill } from './backfill.js';
import { Objectives } from './objectives.js';
import { LOCATION_STATES, maintenanceIcon, stateIcon } from './states.js';

const root = document.getElementById('app');
const banner = document.getElementById('banner');
const store = new Store();
const backfill = new Backfill(document.getElementById('backfill'));
const header = new Header(store, (status) => backfill.update(status));
const chart = new Chart(document.getElementById('chart'));
const detail = new Detail(document.getElementById('detail'), store);
const bars = new Bars(document.getElementById('bars'), store);
new Objectives(document.getElementById('objectives'));
let map; let list; // created below, once the store is wired

function select(name) {
  map.select(name);
  list.select(name);
  detail.show(name);
  bars.showLocation(name);
}

map = new WorldMap(document.getElementById('map'), store, select);
list = new LocationList(document.getElementById('locations'), store, select);
const services = new ServiceSync(store);
const maintenance = new MaintenanceSync(store);
new ServicesPanel(document.getElementById('services'), store, services, select);
new MaintenancePanel(document.getElementById('maintenance'), store, select);
// A service's state counts its apps in maintenance as up.
store.subscribe((change) => { if (change.maintenance) services.refresh(); });

const legend = document.getElementById('legend');
for (const s of LOCATION_STATES) {
  const li = document.createElement('li');
  li.append(stateIcon(s.id), document.createTextNode(s.label));
  legend.append(li);
}
{
  const li = document.createElement('li');
  li.append(maintenanceIcon(), document.createTextNode('Apps in maintenance (ring)'));
  legend.append(li);
}

// The stream starts with a snapshot: one status_update per app checked so
// far, then the system_event snapshot_complete; every message after it is
// live. An app not checked yet has no message (its first check will be),
// so the page cannot count its way to the end: it is in sync at the marker.
let inSnapshot = false;
let connection = 0; // counts the connects: a late sync of an older one is void
let firstMessage = true;
let firstSync = true;

const stream = new Stream({
  async connect() {
    const [locations, summary] = await Promise.all([getJSON('api/locations'), getJSON('api/metrics/summary')]);
    const reset = store.load(locations);
    store.seed(summary.apps_summary);
    // Not awaited: the stream need not wait for them.
    maintenance.refresh({ force: reset });
    services.refresh();
    if (firstSync) {
      // The first meaningful render: the map and the list drawn with
      // every location's state.
      requestAnimationFrame(() => performance.mark('availmon:rendered'));
    }
    store.begin();
    inSnapshot = true;
    connection++;
    root.dataset.synced = 'false';
    header.refresh();
    chart.refresh();
  },
  message(msg) {
    if (firstMessage) {
      firstMessage = false;
      performance.mark('availmon:first-message');
    }
    switch (msg.type) {
      case 'status_update':
        if (!store.apply(msg.data, msg.timestamp)) {
          // An app we do not know: the configuration changed.
          store.signature = '';
          stream.restart();
          return;
        }
        services.updated(msg.timestamp);
        break;
      case 'config_update':
        header.refresh();
        services.refresh();
        maintenance.refresh();
        // Apps or locations were added, removed or changed (Reconfigure):
        // start again from the new set and the stream's new snapshot.
        if (msg.data && 'apps_added' in msg.data) stream.restart();
        break;
      case 'system_event':
        if (msg.data && msg.data.event === 'snapshot_complete') {
          if (inSnapshot) snapshotComplete(msg.data);
          break;
        }
        header.refresh();
        break;
      default:
    }
  },
  state(name, detail) {
    root.dataset.connection = name;
    header.stream(name);
    if (name === 'disconnected') showBanner(detail);
    else if (name === 'live') hideBanner();
  },
});

// snapshotComplete ends the snapshot: the apps it had no message about
// have not been checked yet.
function snapshotComplete({ apps, unchecked }) {
  inSnapshot = false;
  // The snapshot covers every app of the server's configuration: when the
  // counts differ from the store's, the configuration changed between
  // /api/locations and the stream, before any config_update it could see.
  if (Number.isInteger(apps) && Number.isInteger(unchecked) && apps + unchecked !== store.apps.size) {
    store.signature = '';
    stream.restart();
    return;
  }
  store.settle();
  synced();
}

function synced() {
  stream.healthy();
  const current = connection;
  // Mark once the views have drawn the snapshot.
  requestAnimationFrame(() => {
    if (current !== connection) return; // a newer connection is syncing
    root.dataset.synced = 'true';
    if (firstSync) {
      firstSync = false;
      performance.mark('availmon:synced');
    }
  });
}

store.subscribe(() => { root.dataset.applied = String(store.applied); });

let countdown = 0;
function showBanner({ reason, retryAt }) {
  clearInterval(countdown);
  const paint = () => {
    const s = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
    banner.textContent = `Disconnected from the server (${reason}). Reconnecting in ${s} s…`;
  };
  paint();
  countdown = setInterval(paint, 1000);
  banner.hidden = false;
}

function hideBanner() {
  clearInterval(countdown);
  banner.hidden = true;
  banner.textContent = '';
}

stream.start();

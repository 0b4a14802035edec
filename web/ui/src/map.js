// The world map: the outline is drawn once; each location is one marker
// whose shape, class and label change only when its state does. A location
// with apps in maintenance gets a dashed ring around its marker.

import { geoPath, geoGraticule10 } from 'd3-geo';
import { feature, mesh } from 'topojson-client';
import world_ from 'world-atlas/countries-110m.json';
import { makeProjection, WIDTH, HEIGHT } from './projection.js';
import { shapePath, stateInfo } from './states.js';

const SVG = 'http://www.w3.org/2000/svg';
const R = 6;
const RING = 10.5; // the maintenance ring's radius: clear of every state's shape
const SCREEN_RADIUS = 6.5; // px

function el(name, attrs) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export class WorldMap {
  constructor(root, store, onSelect) {
    this.store = store;
    this.onSelect = onSelect;
    this.projection = makeProjection();
    this.markers = new Map(); // location name -> {g, path, title, state}
    this.selected = null;

    const path = geoPath(this.projection);
    // Two layers: the outline, drawn once, and the markers above it, so
    // that a marker's change repaints the markers and not the world.
    const world = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'world', 'aria-hidden': 'true' });
    world.append(
      el('path', { class: 'sphere', d: path({ type: 'Sphere' }) }),
      el('path', { class: 'graticule', d: path(geoGraticule10()) }),
      el('path', { class: 'land', d: path(feature(world_, world_.objects.land)) }),
      el('path', { class: 'borders', d: path(mesh(world_, world_.objects.countries, (a, b) => a !== b)) }),
    );
    const svg = el('svg', {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'world-markers', role: 'group',
      'aria-label': 'World map of the locations',
    });
    this.layer = el('g', { class: 'markers' });
    svg.append(this.layer);
    this.svg = svg;
    root.append(world, svg);
    // Markers keep about the same size on screen whatever the map's width
    // (a phone shrinks the map to a third), so that they stay visible and
    // can be tapped: their shapes are scaled by CSS, their places are not.
    new ResizeObserver(([entry]) => {
      const width = entry.contentRect.width || WIDTH;
      svg.style.setProperty('--marker-scale', Math.min(4, Math.max(1, (SCREEN_RADIUS * WIDTH) / (R * width))).toFixed(3));
    }).observe(svg);

    this.layer.addEventListener('click', (ev) => this.pick(ev));
    this.layer.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        this.pick(ev);
      }
    });
    store.subscribe((change) => this.update(change));
  }

  pick(ev) {
    const g = ev.target.closest('.marker');
    if (g) this.onSelect(g.dataset.name);
  }

  update({ reset, locations }) {
    if (reset) {
      this.layer.replaceChildren();
      this.markers.clear();
      // Draw the southern markers last, so that they overlap the northern
      // ones the way the eye expects.
      const all = [...this.store.locations.values()].sort((a, b) => b.latitude - a.latitude);
      for (const l of all) this.add(l);
      this.select(this.selected);
      return;
    }
    for (const name of locations) this.paint(this.markers.get(name), this.store.locations.get(name));
  }

  add(l) {
    const [x, y] = this.projection([l.longitude, l.latitude]);
    const g = el('g', {
      class: 'marker', tabindex: '0', role: 'button', 'aria-pressed': 'false',
      transform: `translate(${x.toFixed(2)},${y.toFixed(2)})`,
      'data-name': l.name,
      'data-latitude': l.latitude,
      'data-longitude': l.longitude,
    });
    const path = el('path', {});
    const title = el('title', {});
    g.append(title, el('circle', { class: 'maint-ring', r: RING }), path);
    this.layer.append(g);
    const m = { g, path, title, state: null, label: '', maintenance: 0 };
    this.markers.set(l.name, m);
    this.paint(m, l);
  }

  paint(m, l) {
    if (!m) return;
    if (m.state !== l.state) {
      m.state = l.state;
      m.g.setAttribute('class', `marker state-${l.state}${this.selected === l.name ? ' selected' : ''}`);
      m.g.dataset.state = l.state;
      m.path.setAttribute('d', shapePath(l.state, R));
    }
    if (m.maintenance !== l.maintenance) {
      m.maintenance = l.maintenance;
      if (l.maintenance > 0) m.g.setAttribute('data-maintenance', l.maintenance);
      else m.g.removeAttribute('data-maintenance');
    }
    const maint = l.maintenance > 0 ? `, ${l.maintenance} in maintenance` : '';
    const label = `${l.name}: ${stateInfo(l.state).label.toLowerCase()}; ${l.up} up, ${l.down} down, ${l.unavailable} unavailable${maint}`;
    if (label !== m.label) {
      m.label = label;
      m.g.setAttribute('aria-label', label);
      m.title.textContent = label;
    }
  }

  select(name) {
    const old = this.markers.get(this.selected);
    if (old) old.g.classList.remove('selected');
    this.selected = name;
    const m = this.markers.get(name);
    if (m) {
      m.g.classList.add('selected');
      m.g.setAttribute('aria-pressed', 'true');
      this.layer.append(m.g); // on top of its neighbours
    }
    if (old && old !== m) old.g.setAttribute('aria-pressed', 'false');
  }
}

// What a location's marker says, in words, colour (CSS class) and shape, so
// that the states can be told apart without colour.

export const LOCATION_STATES = [
  { id: 'up', label: 'All up', shape: 'circle' },
  { id: 'down', label: 'Some down', shape: 'triangle' },
  { id: 'partial', label: 'Some unavailable', shape: 'diamond' },
  { id: 'unknown', label: 'Nothing known', shape: 'square' },
];

const byId = new Map(LOCATION_STATES.map((s) => [s.id, s]));

export function stateInfo(id) {
  return byId.get(id);
}

// locationState classifies a location by its counts: any down app makes it
// "down"; otherwise an unavailable app next to up ones makes it "partial";
// up apps alone make it "up"; no app with a known state is "unknown".
export function locationState({ up, down, unavailable }) {
  if (down > 0) return 'down';
  if (up > 0) return unavailable > 0 ? 'partial' : 'up';
  return 'unknown';
}

// shapePath returns an SVG path centred on 0,0 with about radius r.
export function shapePath(state, r) {
  switch (byId.get(state).shape) {
    case 'circle':
      return `M${-r},0a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0Z`;
    case 'triangle': {
      const h = r * 1.25;
      return `M0,${-h}L${h},${h * 0.8}L${-h},${h * 0.8}Z`;
    }
    case 'diamond': {
      const d = r * 1.3;
      return `M0,${-d}L${d},0L0,${d}L${-d},0Z`;
    }
    default:
      return `M${-r},${-r}H${r}V${r}H${-r}Z`;
  }
}

const SVG = 'http://www.w3.org/2000/svg';

// stateIcon returns a small inline SVG of a state's shape, for the legend
// and the list.
export function stateIcon(state) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '-8 -8 16 16');
  svg.setAttribute('class', `icon state-${state}`);
  svg.setAttribute('aria-hidden', 'true');
  const p = document.createElementNS(SVG, 'path');
  p.setAttribute('d', shapePath(state, 5));
  svg.append(p);
  return svg;
}

// maintenanceIcon returns the map's maintenance ring, small, for the
// legend.
export function maintenanceIcon() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '-8 -8 16 16');
  svg.setAttribute('class', 'icon maint-icon');
  svg.setAttribute('aria-hidden', 'true');
  const c = document.createElementNS(SVG, 'circle');
  c.setAttribute('r', 6);
  c.setAttribute('class', 'maint-ring');
  svg.append(c);
  return svg;
}

export const APP_STATUS_LABEL = { up: 'Up', down: 'Down', unavailable: 'Unavailable' };

// The overall availability of the last 24 hours from /api/status/history,
// as a line over 0-100 %, with gaps where nothing was known.

import { getJSON } from './api.js';
import { hourMinute } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 720; const H = 160;
const PAD = { left: 44, right: 8, top: 8, bottom: 22 };
const REFRESH = 60000;

function el(name, attrs = {}, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}

export class Chart {
  constructor(root) {
    this.root = root;
    setInterval(() => this.refresh(), REFRESH);
  }

  async refresh() {
    let d;
    try {
      d = await getJSON('api/status/history?period=24h&resolution=5m');
    } catch {
      return;
    }
    this.draw(d.data_points || []);
  }

  draw(points) {
    const n = points.length;
    const x = (i) => PAD.left + (n <= 1 ? 0 : (i * (W - PAD.left - PAD.right)) / (n - 1));
    const y = (v) => PAD.top + ((100 - v) * (H - PAD.top - PAD.bottom)) / 100;
    const known = points.filter((p) => p.overall_availability != null).map((p) => p.overall_availability);
    const label = known.length === 0
      ? 'Overall availability over the last 24 hours: nothing known yet'
      : `Overall availability over the last 24 hours: lowest ${Math.min(...known).toFixed(2)} %, latest ${known[known.length - 1].toFixed(2)} %`;
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img', 'aria-label': label });
    for (const v of [0, 50, 100]) {
      svg.append(el('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
      svg.append(el('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, `${v}%`));
    }
    for (let i = 0; i < n; i += Math.max(1, Math.floor(n / 6))) {
      svg.append(el('text', { class: 'axis', x: x(i), y: H - 6, 'text-anchor': 'middle' }, hourMinute(new Date(points[i].timestamp))));
    }
    let d = '';
    let pen = false;
    points.forEach((p, i) => {
      if (p.overall_availability == null) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.overall_availability).toFixed(1)}${pen ? '' : 'h0.01'}`;
      pen = true;
    });
    if (d) svg.append(el('path', { class: 'line', d }));
    this.root.replaceChildren(svg);
  }
}

// The backfill's progress bar: shown while /api/status says the history is
// being filled from the backend (data.backfill.state running or waiting),
// gone when it is done, off, or when the server has no backfill member.
// The header's poll of /api/status feeds it; while a backfill runs it asks
// more often, so that the bar moves.

import { getJSON } from './api.js';
import { duration } from './days.js';
import { h } from './dom.js';

const POLL = 3000; // ms between polls while a backfill runs

export class Backfill {
  constructor(root) {
    this.root = root;
    this.text = h('span', { id: 'backfill-text' });
    this.bar = h('progress', { max: '1', value: '0', 'aria-labelledby': 'backfill-text' });
    root.append(this.text, this.bar);
    root.hidden = true;
    this.timer = 0;
  }

  // update takes /api/status's data.
  update(status) {
    const b = status && status.backfill;
    const active = !!b && (b.state === 'running' || b.state === 'waiting');
    clearTimeout(this.timer);
    this.root.hidden = !active;
    this.root.dataset.state = active ? b.state : '';
    if (!active) return;
    const p = Math.max(0, Math.min(1, Number(b.progress) || 0));
    this.bar.value = p;
    const parts = [`Filling the history from the backend: ${Math.floor(100 * p)} %`];
    if (Number.isFinite(b.apps_total)) parts.push(`${b.apps_done} of ${b.apps_total} apps`);
    if (Number.isFinite(b.seconds_left) && b.seconds_left > 0) parts.push(`${duration(b.seconds_left)} of app time left`);
    let text = parts.join(', ');
    if (b.state === 'waiting') text += '. A backend failed; retrying';
    text += '. Figures of days not filled yet have low coverage.';
    this.text.textContent = text;
    this.timer = setTimeout(() => this.poll(), POLL);
  }

  async poll() {
    try {
      this.update(await getJSON('api/status'));
    } catch {
      this.timer = setTimeout(() => this.poll(), POLL);
    }
  }
}

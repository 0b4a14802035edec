// What the page says about a maintenance window of /api/maintenance: whom
// it covers, when, and whether it is open. Pure functions of a window and
// the server's time, so that they can be tested without a browser.

import { dateTime } from './format.js';

function ms(iso) {
  return iso ? Date.parse(iso) : null;
}

// phase is "open" (active now), "upcoming" (opens again later) or "over".
export function phase(w) {
  if (w.active) return 'open';
  return w.next_start ? 'upcoming' : 'over';
}

// current returns the open windows, soonest to close first, then the
// upcoming ones, soonest to open first; and how many are over.
export function current(windows) {
  const open = windows.filter((w) => phase(w) === 'open').sort((a, b) => ms(a.next_end) - ms(b.next_end) || cmp(a.id, b.id));
  const upcoming = windows.filter((w) => phase(w) === 'upcoming').sort((a, b) => ms(a.next_start) - ms(b.next_start) || cmp(a.id, b.id));
  return { shown: [...open, ...upcoming], over: windows.length - open.length - upcoming.length };
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// nextBoundary returns the first moment after now (ms) at which a window
// opens or closes, or null when none will.
export function nextBoundary(windows, now) {
  let next = null;
  for (const w of windows) {
    for (const t of [ms(w.next_start), ms(w.next_end)]) {
      if (t != null && t > now && (next == null || t < next)) next = t;
    }
  }
  return next;
}

// targets says which apps a window covers, as the window names them: every
// part given must hold.
export function targets(w) {
  const parts = [];
  if (w.app) parts.push(`app ${w.app}`);
  if (w.service) parts.push(`service ${w.service}`);
  if (w.location) parts.push(`location ${w.location}`);
  const labels = Object.entries(w.labels || {}).sort(([a], [b]) => cmp(a, b)).map(([k, v]) => `${k}=${v}`);
  if (labels.length) parts.push(`labels ${labels.join(', ')}`);
  return parts.join('; ');
}

// schedule says how the window recurs, or that it does not.
export function schedule(w, now) {
  if (w.cron) return `${w.cron} for ${w.duration} (${w.time_zone || 'UTC'})`;
  return `once, ${dateTime(ms(w.from), now)} to ${dateTime(ms(w.to), ms(w.from))}`;
}

// when says when the window is open now or next, to follow its phase
// ("Open now", "Upcoming").
export function when(w, now) {
  const start = ms(w.next_start); const end = ms(w.next_end);
  switch (phase(w)) {
    case 'open': return `until ${dateTime(end, now)}`;
    case 'upcoming': return `${dateTime(start, now)} to ${dateTime(end, start)}`;
    default: return '';
  }
}

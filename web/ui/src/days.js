// What one day of the 90-day bars says: its level (the colour), whether it
// rests on too little data to be trusted, and the words of its tooltip.
// Pure functions of /api/availability's step figures, so that node can
// test them without a browser.

import { percent } from './format.js';

export const DAYS = 90;

// Below this coverage (share of the day outside maintenance with a known
// state) a day's colour is drawn faint and striped: a day that was mostly
// not observed must not look like a good one.
export const LOW_COVERAGE = 0.9;

// LEVELS, worst last: the legend lists them in this order.
export const LEVELS = [
  { id: 'up', label: 'No downtime' },
  { id: 'minor', label: '99 % or more' },
  { id: 'major', label: '95 % to 99 %' },
  { id: 'down', label: 'Below 95 %' },
  { id: 'none', label: 'No data' },
];

// day reads one step of an item: [up, down, unknown, maintenance] seconds
// over [start, end).
export function day([up, down, unknown, maint], start, end) {
  const known = up + down;
  const outside = (Date.parse(end) - Date.parse(start)) / 1000 - maint;
  const availability = known === 0 ? null : (100 * up) / known;
  const coverage = outside <= 0 ? null : known / outside;
  let level = 'none';
  if (availability != null) {
    if (down === 0) level = 'up';
    else if (availability >= 99) level = 'minor';
    else if (availability >= 95) level = 'major';
    else level = 'down';
  }
  return {
    start, end, up, down, unknown, maint, availability, coverage, level,
    low: level !== 'none' && coverage != null && coverage < LOW_COVERAGE,
  };
}

// lastDays returns the last n steps of an answer's item as days. A 90-day
// window in the reader's zone starts and ends inside a day, so the answer
// has 91 parts; the oldest, partial one is left out.
export function lastDays(steps, itemSteps, n = DAYS) {
  const from = Math.max(0, steps.length - n);
  const out = [];
  for (let i = from; i < steps.length; i++) out.push(day(itemSteps[i], steps[i].start, steps[i].end));
  return out;
}

// duration writes seconds as people read a downtime: "0 s", "45 s",
// "12 min", "3 h 5 min", "2 d 4 h".
export function duration(s) {
  s = Math.round(s);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric' });

export function dayLabel(d) {
  return dayFmt.format(new Date(d.start));
}

// describe is the day's tooltip and accessible name. outages is the
// number of outages that overlap the day, undefined while not known.
export function describe(d, outages) {
  const parts = [dayLabel(d)];
  if (d.level === 'none') {
    parts.push(d.maint > 0 && d.coverage == null ? 'in maintenance all day' : 'no data');
  } else {
    parts.push(`${percent(d.availability)} available`);
    parts.push(d.down > 0 ? `${duration(d.down)} down` : 'no downtime');
    if (d.low) parts.push(d.coverage < 0.01 ? 'under 1 % observed' : `only ${Math.round(100 * d.coverage)} % observed`);
  }
  if (outages !== undefined) parts.push(outages === 1 ? '1 outage' : `${outages} outages`);
  if (d.maint > 0 && d.coverage != null) parts.push(`${duration(d.maint)} in maintenance`);
  return parts.join(', ');
}

// overlapping counts the outages (of /api/.../outages) that overlap the
// day; an ongoing one ends at now.
export function overlapping(outages, d, now = Date.now()) {
  const from = Date.parse(d.start);
  const to = Date.parse(d.end);
  return outages.filter((o) => Date.parse(o.start) < to && (o.end == null ? now : Date.parse(o.end)) > from);
}

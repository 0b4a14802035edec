// Unit tests of what the page says about maintenance windows (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { current, nextBoundary, phase, schedule, targets, when } from '../../src/windows.js';
import { dateTime, hourMinute } from '../../src/format.js';

const now = Date.parse('2026-11-22T12:00:00Z');
const iso = (offsetMin) => new Date(now + offsetMin * 60000).toISOString();

const open = { id: 'b-open', active: true, next_start: iso(-30), next_end: iso(90), app: 'checkout', from: iso(-30), to: iso(90) };
const soon = { id: 'a-soon', active: false, next_start: iso(10), next_end: iso(40), service: 'web', cron: '10 12 * * *', duration: '30m', time_zone: 'Europe/Berlin' };
const later = { id: 'c-later', active: false, next_start: iso(600), next_end: iso(660), location: 'Tel Aviv', labels: { tier: 'db', env: 'prod' }, cron: '@daily', duration: '1h' };
const over = { id: 'd-over', active: false, next_start: null, next_end: null, app: 'x', from: iso(-120), to: iso(-60) };

test('phase: open, upcoming or over', () => {
  assert.deepEqual([open, soon, over].map(phase), ['open', 'upcoming', 'over']);
});

test('current lists the open windows, then the upcoming by start, and counts the rest', () => {
  const { shown, over: n } = current([later, over, soon, open]);
  assert.deepEqual(shown.map((w) => w.id), ['b-open', 'a-soon', 'c-later']);
  assert.equal(n, 1);
  assert.deepEqual(current([]), { shown: [], over: 0 });
});

test('nextBoundary is the first start or end after now', () => {
  const cases = [
    { name: 'an upcoming start comes before an open end', windows: [open, soon], want: now + 10 * 60000 },
    { name: 'an open end alone', windows: [open], want: now + 90 * 60000 },
    { name: 'starts and ends in the past do not count', windows: [over, { ...open, next_end: iso(-1) }], want: null },
    { name: 'no windows', windows: [], want: null },
  ];
  for (const c of cases) assert.equal(nextBoundary(c.windows, now), c.want, c.name);
});

test('targets names every part of the selector, labels sorted', () => {
  assert.equal(targets(open), 'app checkout');
  assert.equal(targets(later), 'location Tel Aviv; labels env=prod, tier=db');
  assert.equal(targets({ app: 'a', service: 's', location: 'l' }), 'app a; service s; location l');
});

test('schedule says how a window recurs', () => {
  assert.equal(schedule(soon, now), '10 12 * * * for 30m (Europe/Berlin)');
  assert.equal(schedule(later, now), '@daily for 1h (UTC)');
  assert.match(schedule(open, now), /^once, .+ to .+$/);
});

test('when: an open window ends; an upcoming one opens and ends', () => {
  assert.equal(when(open, now), `until ${dateTime(Date.parse(open.next_end), now)}`);
  assert.equal(when(soon, now), `${hourMinute(new Date(Date.parse(soon.next_start)))} to ${hourMinute(new Date(Date.parse(soon.next_end)))}`);
  assert.equal(when(over, now), '');
});

test('dateTime gives the date only for another day', () => {
  const d = new Date(2026, 10, 22, 9, 30);
  assert.equal(dateTime(d.getTime(), new Date(2026, 10, 22, 23, 0).getTime()), hourMinute(d));
  const other = dateTime(d.getTime(), new Date(2026, 10, 23, 1, 0).getTime());
  assert.notEqual(other, hourMinute(d));
  assert.match(other, /22/);
});

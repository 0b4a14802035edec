// Unit tests of what a day of the 90-day bars says, and of the objectives'
// order (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { day, describe, duration, lastDays, overlapping } from '../../src/days.js';
import { sortObjectives } from '../../src/objectives.js';

const start = '2026-11-25T00:00:00.000Z';
const end = '2026-11-26T00:00:00.000Z';

test('day: the level follows the availability; no data and low coverage are told apart', () => {
  const cases = [
    { name: 'all up', steps: [86400, 0, 0, 0], level: 'up', low: false },
    { name: 'a minute down', steps: [86340, 60, 0, 0], level: 'minor', low: false },
    { name: 'two percent down', steps: [84672, 1728, 0, 0], level: 'major', low: false },
    { name: 'half down', steps: [43200, 43200, 0, 0], level: 'down', low: false },
    { name: 'nothing known', steps: [0, 0, 86400, 0], level: 'none', low: false },
    { name: 'a tenth observed', steps: [8640, 0, 77760, 0], level: 'up', low: true },
    { name: 'maintenance does not lower the coverage', steps: [43200, 0, 0, 43200], level: 'up', low: false },
    { name: 'all maintenance', steps: [0, 0, 0, 86400], level: 'none', low: false },
  ];
  for (const c of cases) {
    const d = day(c.steps, start, end);
    assert.equal(d.level, c.level, c.name);
    assert.equal(d.low, c.low, c.name);
  }
});

test('day: a 23-hour day (summer time begins) is covered in full by 23 hours', () => {
  const d = day([82800, 0, 0, 0], '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z');
  assert.equal(d.coverage, 1);
});

test('lastDays leaves out the oldest, partial part of a 91-part answer', () => {
  const steps = Array.from({ length: 91 }, (_, i) => ({
    start: new Date(Date.parse(start) + (i - 90) * 86400e3).toISOString(),
    end: new Date(Date.parse(start) + (i - 89) * 86400e3).toISOString(),
  }));
  const item = steps.map((_, i) => [i, 0, 86400 - i, 0]);
  const days = lastDays(steps, item);
  assert.equal(days.length, 90);
  assert.equal(days[0].up, 1);
  assert.equal(days[89].start, start);
  assert.equal(lastDays(steps.slice(0, 3), item.slice(0, 3)).length, 3);
});

test('describe names the day, its availability, downtime, coverage and outages', () => {
  const d = day([86100, 300, 0, 0], start, end);
  const text = describe(d, 2);
  assert.match(text, /99\.65 % available, 5 min down, 2 outages$/);
  assert.match(describe(day([0, 0, 86400, 0], start, end)), /no data$/);
  assert.match(describe(day([8640, 0, 77760, 0], start, end), 0), /no downtime, only 10 % observed, 0 outages$/);
  assert.match(describe(day([0, 0, 0, 86400], start, end)), /in maintenance all day$/);
});

test('duration', () => {
  assert.deepEqual([0, 45, 60, 330, 3600, 3900, 2 * 86400 + 3600 * 4].map(duration),
    ['0 s', '45 s', '1 min', '6 min', '1 h', '1 h 5 min', '2 d 4 h']);
});

test('overlapping: an outage counts on every day it touches; an ongoing one to now', () => {
  const d = day([86400, 0, 0, 0], start, end);
  const os = [
    { start: '2026-11-24T23:50:00Z', end: '2026-11-25T00:10:00Z' },
    { start: '2026-11-25T12:00:00Z', end: '2026-11-25T12:01:00Z' },
    { start: '2026-11-24T10:00:00Z', end: '2026-11-24T11:00:00Z' },
    { start: '2026-11-26T00:00:00Z', end: null },
    { start: '2026-11-25T23:00:00Z', end: null },
  ];
  assert.equal(overlapping(os, d, Date.parse('2026-11-26T06:00:00Z')).length, 3);
});

test('sortObjectives orders by each column, by name within ties', () => {
  const o = (name, attainment, left, burn, state) => ({
    name, target: 0.999, attainment, error_budget: { remaining_ratio: left }, burn_rates: { '1h': burn }, state,
  });
  const list = [o('b', 0.99, -1, 20, 'breached'), o('a', null, 0.5, null, 'ok'), o('c', 0.9995, 0.2, 2, 'at_risk')];
  const names = (key, dir) => sortObjectives(list, key, dir).map((x) => x.name).join('');
  assert.equal(names('name', 1), 'abc');
  assert.equal(names('target', 1), 'abc');
  assert.equal(names('attainment', 1), 'abc'); // null first: not known
  assert.equal(names('budget', -1), 'acb');
  assert.equal(names('burn', -1), 'bca');
  assert.equal(names('state', 1), 'bca');
  assert.deepEqual(list.map((x) => x.name), ['b', 'a', 'c'], 'the list itself is not reordered');
});

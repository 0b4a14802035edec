// Unit tests of the store (node --test): its counts with apps in maintenance,
// and what the end of a stream snapshot says of the apps it did not mention.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The store renders through animation frames, or a timer in a hidden tab:
// node has no document, so it is a hidden tab here.
globalThis.document = { hidden: true };
const { Store } = await import('../../src/store.js');

function fleet() {
  const s = new Store();
  s.load([
    { name: 'London', latitude: 51.5, longitude: -0.1, apps: ['l-web', 'l-api'] },
    { name: 'Sydney', latitude: -33.9, longitude: 151.2, apps: ['s-web'] },
  ]);
  s.seed([{ name: 'l-web', status: 'down' }, { name: 'l-api', status: 'up' }, { name: 's-web', status: 'unavailable' }]);
  return s;
}

const counts = (l) => ({ up: l.up, down: l.down, unavailable: l.unavailable, maintenance: l.maintenance, state: l.state });

test('an app in maintenance counts in maintenance, not in its status, as the API counts it', () => {
  const s = fleet();
  assert.deepEqual(counts(s.locations.get('London')), { up: 1, down: 1, unavailable: 0, maintenance: 0, state: 'down' });
  s.setMaintenance(new Set(['l-web', 's-web']));
  assert.deepEqual(counts(s.locations.get('London')), { up: 1, down: 0, unavailable: 0, maintenance: 1, state: 'up' });
  assert.deepEqual(counts(s.locations.get('Sydney')), { up: 0, down: 0, unavailable: 0, maintenance: 1, state: 'unknown' });
  assert.deepEqual(s.totals(), { up: 1, down: 0, unavailable: 0, maintenance: 2 });

  // Its status still changes underneath, and shows when the window ends.
  assert.equal(s.apply({ app: 'l-web', status: 'up', location: 'London' }, '2026-11-22T12:00:00.000Z'), true);
  assert.deepEqual(counts(s.locations.get('London')), { up: 1, down: 0, unavailable: 0, maintenance: 1, state: 'up' });
  s.setMaintenance(new Set());
  assert.deepEqual(counts(s.locations.get('London')), { up: 2, down: 0, unavailable: 0, maintenance: 0, state: 'up' });
  assert.deepEqual(s.totals(), { up: 2, down: 0, unavailable: 1, maintenance: 0 });
});

test('a change of flags tells the views which apps and locations changed', () => {
  const s = fleet();
  s.flush();
  const changes = [];
  s.subscribe((c) => changes.push(c));
  s.setMaintenance(new Set(['s-web']));
  s.setMaintenance(new Set(['s-web'])); // the same again: nothing more
  s.flush();
  assert.equal(changes.length, 1);
  assert.deepEqual([...changes[0].apps], ['s-web']);
  assert.deepEqual([...changes[0].locations], ['Sydney']);
  assert.equal(changes[0].maintenance, true);
  assert.equal(changes[0].services, false);
});

test('services and windows are kept and announced', () => {
  const s = fleet();
  s.flush();
  const changes = [];
  s.subscribe((c) => changes.push(c));
  s.setServiceDetail('web', { name: 'web', locations: [] });
  s.setServices([{ name: 'api', status: 'up' }]); // web is gone: so is its detail
  s.setWindows([{ id: 'w1', active: true }], 1234);
  s.flush();
  assert.equal(s.serviceDetails.has('web'), false);
  assert.equal(s.serverNow, 1234);
  assert.equal(changes.length, 1);
  assert.equal(changes[0].services && changes[0].windows, true);
});

test('the end of a snapshot marks the apps it had no message about as not checked yet', () => {
  const s = fleet();
  s.begin();
  s.apply({ app: 'l-web', status: 'down', location: 'London' }, '2026-11-22T12:00:00.000Z');
  s.apply({ app: 'l-api', status: 'up', location: 'London' }, '2026-11-22T12:00:00.000Z');
  s.flush();
  const changes = [];
  s.subscribe((c) => changes.push(c));
  s.settle();
  s.flush();
  const flags = () => [...s.apps.values()].map((a) => `${a.name}=${a.status}${a.unchecked ? ' unchecked' : ''} ${a.lastCheck}`);
  assert.deepEqual(flags(), ['l-web=down 2026-11-22T12:00:00.000Z', 'l-api=up 2026-11-22T12:00:00.000Z', 's-web=unavailable unchecked null']);
  assert.deepEqual([...changes[0].apps], ['s-web']);

  // Its first check, live.
  s.apply({ app: 's-web', status: 'up', location: 'Sydney' }, '2026-11-22T12:00:30.000Z');
  assert.equal(s.apps.get('s-web').unchecked, false);

  // The next connection's snapshot has no message about l-api (the server
  // started afresh, say): it is unavailable and unchecked again, and its
  // location's counts follow.
  s.begin();
  s.apply({ app: 'l-web', status: 'down', location: 'London' }, '2026-11-22T12:01:00.000Z');
  s.apply({ app: 's-web', status: 'up', location: 'Sydney' }, '2026-11-22T12:00:30.000Z');
  s.settle();
  assert.deepEqual(flags(), ['l-web=down 2026-11-22T12:01:00.000Z', 'l-api=unavailable unchecked null', 's-web=up 2026-11-22T12:00:30.000Z']);
  assert.deepEqual(counts(s.locations.get('London')), { up: 0, down: 1, unavailable: 1, maintenance: 0, state: 'down' });
});

test('an app still unchecked at the next snapshot\'s end is not redrawn', () => {
  const s = fleet();
  s.begin();
  s.settle();
  s.flush();
  const changes = [];
  s.subscribe((c) => changes.push(c));
  s.begin();
  s.settle();
  s.flush();
  assert.deepEqual([...changes[0].apps], []);
});

// Formatting of numbers and times for people.

export function percent(v) {
  return v == null ? '—' : `${v.toFixed(2)} %`;
}

// availability is 100 * up / (up + down), as the API computes it; null when
// no app has a known state.
export function availability(up, down) {
  return up + down === 0 ? null : Math.round((10000 * up) / (up + down)) / 100;
}

export function seconds(v) {
  if (v == null) return '—';
  if (v < 1) return `${Math.round(v * 1000)} ms`;
  return `${v.toFixed(2)} s`;
}

const timeFmt = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit', minute: '2-digit', second: '2-digit',
});
const dayFmt = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
});

export function clock(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Date.now() - d.getTime() < 20 * 3600e3 ? timeFmt.format(d) : dayFmt.format(d);
}

const hourFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

export function hourMinute(d) {
  return hourFmt.format(d);
}

const dateTimeFmt = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
});

// dateTime writes a moment (ms) as a time of day when it falls on the same
// local day as now, and with its date otherwise.
export function dateTime(ms, now) {
  const d = new Date(ms);
  return d.toDateString() === new Date(now).toDateString() ? hourFmt.format(d) : dateTimeFmt.format(d);
}

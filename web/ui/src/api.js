// The JSON API, addressed relative to the page so that the page works under
// any prefix it is mounted at.

export function apiURL(path) {
  return new URL(path, document.baseURI);
}

// getJSON fetches path and returns its `data`; an error envelope becomes an
// Error with the API's message.
export async function getJSON(path, opts) {
  return (await getEnvelope(path, opts)).data;
}

// getEnvelope fetches path and returns its `data` and `meta`: the meta's
// timestamp and last_update tell how current the answer is. The page only
// reads: every request is a GET.
export async function getEnvelope(path, { signal } = {}) {
  const res = await fetch(apiURL(path), { signal, headers: { Accept: 'application/json' } });
  let body;
  try {
    body = await res.json();
  } catch {
    const err = new Error(`${path}: HTTP ${res.status}, not JSON`);
    err.status = res.status;
    throw err;
  }
  if (!res.ok) {
    const e = body && body.error;
    const err = new Error(e ? `${e.code}: ${e.message}` : `${path}: HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return { data: body.data, meta: body.meta || {} };
}

// wsURL is the address of /api/ws relative to the page.
export function wsURL() {
  const u = apiURL('api/ws');
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.href;
}

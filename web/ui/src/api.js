// The JSON API, addressed relative to the page so that the page works under
// any prefix it is mounted at.

export function apiURL(path) {
  return new URL(path, document.baseURI);
}

// getJSON fetches path and returns its `data`; an error envelope becomes an
// Error with the API's message.
export async function getJSON(path, { signal } = {}) {
  const res = await fetch(apiURL(path), { signal, headers: { Accept: 'application/json' } });
  let body;
  try {
    body = await res.json();
  } catch {
    throw new Error(`${path}: HTTP ${res.status}, not JSON`);
  }
  if (!res.ok) {
    const e = body && body.error;
    throw new Error(e ? `${e.code}: ${e.message}` : `${path}: HTTP ${res.status}`);
  }
  return body.data;
}

// wsURL is the address of /api/ws relative to the page.
export function wsURL() {
  const u = apiURL('api/ws');
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.href;
}

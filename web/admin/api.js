// Every call the page makes goes through here: the same REST API any client
// uses, with the key the owner typed in, kept in sessionStorage (gone when
// the tab closes). Errors carry the server's message for the place that failed.
import { t } from './i18n.js';

const KEY = 'cilia.key';

export const session = {
  get key() { return sessionStorage.getItem(KEY) || ''; },
  set(key) { sessionStorage.setItem(KEY, key); },
  clear() { sessionStorage.removeItem(KEY); },
};

export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code || '';
  }
}

const listeners = new Set();
// Called with the error when a call is refused for its key (401): the key
// was revoked or mistyped, and the page goes back to the login.
export function onUnauthenticated(fn) { listeners.add(fn); }

// `body`: an object (sent as JSON), or a Blob/File/string (sent as is).
// `raw`: return the Response itself on success (downloads).
export async function api(path, { method, body, raw = false, key = session.key } = {}) {
  const headers = { Authorization: `Bearer ${key}` };
  let payload;
  if (body !== undefined) {
    if (body instanceof Blob || typeof body === 'string') {
      payload = body;
    } else {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
  }
  let res;
  try {
    res = await fetch(path, { method: method || (body === undefined ? 'GET' : 'POST'), headers, body: payload });
  } catch {
    throw new ApiError(0, t('error.network'), 'network');
  }
  if (res.ok && raw) return res;
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* not JSON: the text is the message */ }
  if (!res.ok) {
    const message = json?.error?.message || text || `HTTP ${res.status}`;
    const error = new ApiError(res.status, message, json?.error?.code);
    if (res.status === 401) for (const fn of listeners) fn(error);
    throw error;
  }
  return json;
}

export const enc = encodeURIComponent;

// A cilia to benchmark: one started here on a fresh data dir, or a running one (--url/--key).
import { readFileSync } from 'node:fs';

import { request, startServer } from '../../tests/e2e/lib/server.mjs';

export async function openCilia({ url, key, dataDir, startTimeoutMs = 120_000 } = {}) {
  if (url) {
    const base = url.replace(/\/$/, '');
    return { url: base, key, pid: null, api: (path, options = {}) => request(base, path, { key, ...options }), stop: async () => {} };
  }
  // Retrieval and index knobs from the caller's environment reach the server,
  // so that weights can be tuned without editing anything.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => /^CILIA_(RETRIEVAL|INDEX|EMBEDDING)_/.test(name)),
  );
  const server = await startServer({ dataDir, startTimeoutMs, env });
  return { url: server.url, key: server.key, pid: server.pid, api: server.api, stop: () => server.stop() };
}

// Posts each conversation in requests of at most `batch` messages, with ?sync=true.
export async function ingestAll(cilia, conversations, { batch = 100 } = {}) {
  let messages = 0;
  let requests = 0;
  for (const conversation of conversations) {
    for (let from = 0; from < conversation.messages.length; from += batch) {
      const body = { ...conversation, messages: conversation.messages.slice(from, from + batch) };
      const reply = await cilia.api('/v1/ingest/messages?sync=true', { body, timeoutMs: 600_000 });
      if (reply.status !== 200) throw new Error(`ingest ${conversation.conversation_id}: ${reply.status} ${reply.text}`);
      messages += body.messages.length;
      requests += 1;
    }
  }
  return { messages, requests };
}

export async function search(cilia, body) {
  const reply = await cilia.api('/v1/search', { body });
  if (reply.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${reply.status} ${reply.text}`);
  return reply.json;
}

// Resident memory of a local process, in bytes (null when unknown).
export function residentBytes(pid) {
  if (!pid) return null;
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : null;
}

// The window count from GET /metrics: the first metric whose name mentions windows, summed
// over its label sets (e.g. one per namespace).
export async function windowCount(cilia) {
  const reply = await cilia.api('/metrics');
  if (reply.status !== 200) return null;
  const samples = [...reply.text.matchAll(/^(cilia_\w*windows\w*)(\{[^}]*\})? ([0-9.eE+]+)$/gm)]
    .filter(([, name]) => !/_(seconds|bytes|ms)\b/.test(name));
  if (samples.length === 0) return null;
  const name = samples[0][1];
  return samples.filter((s) => s[1] === name).reduce((sum, s) => sum + Number(s[3]), 0);
}

#!/usr/bin/env node
// Load test (issue 11): --streams concurrent streaming chats through the gateway, recalls at
// --recall-rate a second and ingest at --ingest-rate a second, all at once for --seconds, on
// loopback against the scripted fake upstream. Every --sample-s seconds: each kind's count,
// errors and p50/p99, and the server's RSS. Prints Markdown; writes bench/results/load-*.json.
//   node bench/load.mjs                               # the issue's 10 minutes
//   node bench/load.mjs --seconds 60 --recall-rate 300
//   node bench/load.mjs --fixed-archive               # the same load on an archive that does not grow
// --fixed-archive: streams run with [features] memory = false (answered, not stored) and ingest
// sends the same 50 messages again and again (deduplicated by id), so a growing RSS is a leak,
// not data.
// Recalls are open-loop (sent on a clock, not after the previous answer), at most
// --recall-inflight at once: a send that finds them all busy counts as "behind", not sent.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { startGateway } from '../tests/e2e/lib/gateway.mjs';
import { repoRoot } from '../tests/e2e/lib/server.mjs';
import { synthConversations } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '600' },
    streams: { type: 'string', default: '200' },
    'stream-words': { type: 'string', default: '20' },
    'stream-slow-ms': { type: 'string', default: '50' },
    'recall-rate': { type: 'string', default: '1000' },
    'recall-inflight': { type: 'string', default: '64' },
    'ingest-rate': { type: 'string', default: '20' },
    'archive-messages': { type: 'string', default: '3000' },
    'sample-s': { type: 'string', default: '30' },
    'fixed-archive': { type: 'boolean', default: false },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});
const SECONDS = Number(opts.seconds);
const STREAMS = Number(opts.streams);
const RECALL_RATE = Number(opts['recall-rate']);
const RECALL_INFLIGHT = Number(opts['recall-inflight']);
const INGEST_RATE = Number(opts['ingest-rate']);
const SAMPLE_MS = Number(opts['sample-s']) * 1000;
const FIXED = opts['fixed-archive'];
const log = (message) => console.error(message);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One pool per kind, so that streams never wait for a recall's socket and the server's worker
// threads (one per open connection) cover every socket: streams + recalls + ingest < threads.
const agents = {
  stream: new Agent({ keepAlive: true, maxSockets: STREAMS }),
  recall: new Agent({ keepAlive: true, maxSockets: RECALL_INFLIGHT }),
  ingest: new Agent({ keepAlive: true, maxSockets: 4 }),
};

function post(agent, baseUrl, path, body, headers) {
  const url = new URL(path, baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const started = performance.now();
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => resolve({ status: 0, ms: performance.now() - started, text: `transport: ${e.message}` }));
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, ms: performance.now() - started, text: `transport: ${e.message}` }));
    req.end(payload);
  });
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] : null);

// Per kind: latencies and errors of the current sample window, and totals.
function tracker() {
  return { window: [], total: 0, errors: 0, windowErrors: 0, samples: new Set(), behind: 0 };
}
const kinds = { stream: tracker(), recall: tracker(), ingest: tracker() };
function record(kind, reply, problem) {
  const t = kinds[kind];
  t.total += 1;
  t.window.push(reply.ms);
  if (problem) {
    t.errors += 1;
    t.windowErrors += 1;
    if (t.samples.size < 5) t.samples.add(problem.slice(0, 160));
  }
}

function streamProblem(reply, expected) {
  if (reply.status !== 200) return `status ${reply.status}: ${reply.text.slice(0, 120)}`;
  if (reply.text.includes('"error"')) return `error event: ${reply.text.slice(reply.text.indexOf('"error"'), 160)}`;
  if (!reply.text.trimEnd().endsWith('data: [DONE]')) return 'no [DONE] at the end';
  const text = reply.text.split('\n').filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
  return text === expected ? null : `text ${JSON.stringify(text.slice(0, 60))}`;
}

function serverRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function main() {
  log(`starting the gateway and filling an archive of ${opts['archive-messages']} messages`);
  // Every client here is 127.0.0.1: the per-address cap (128) would refuse the streams past it,
  // as it should refuse one address that takes every worker.
  const gateway = await startGateway({
    env: { CILIA_JOBS_ENABLED: 'false', CILIA_SERVER_THREADS: '512', CILIA_SERVER_MAX_CONNECTIONS_PER_PEER: '0',
           ...(FIXED ? { CILIA_FEATURES_MEMORY: 'false' } : {}) },
  });
  const auth = { authorization: `Bearer ${gateway.key}` };
  const queries = [];
  let archived = 0;
  for (const conversation of synthConversations({ seed: 'load', messages: Number(opts['archive-messages']), start: '2025-01-01T00:00:00Z', end: '2026-06-01T00:00:00Z' })) {
    const reply = await post(agents.ingest, gateway.url, '/v1/ingest/messages?sync=true',
      conversation, auth);
    if (reply.status !== 200) throw new Error(`filling the archive: ${reply.status} ${reply.text.slice(0, 200)}`);
    archived += conversation.messages.length;
    for (const m of conversation.messages.slice(0, 3)) queries.push(m.content.split(/\s+/).slice(0, 6).join(' '));
  }
  log(`archive: ${archived} messages; running ${SECONDS} s of ${STREAMS} streams, ${RECALL_RATE} recalls/s, ${INGEST_RATE} ingests/s`);

  const words = Number(opts['stream-words']);
  const expected = Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
  const began = performance.now();
  const endAt = began + SECONDS * 1000;
  const running = () => performance.now() < endAt;

  const streamClient = async (i) => {
    await sleep((1000 * i) / STREAMS);  // a ramp over the first second
    for (let turn = 0; running(); turn++) {
      const reply = await post(agents.stream, gateway.url, '/v1/chat/completions',
        { model: 'companion', stream: true, messages: [{ role: 'user', content: `client ${i} turn ${turn} [[slow:${opts['stream-slow-ms']}]] [[reply:${expected}]]` }] },
        { ...auth, 'x-cilia-conversation': `load-stream-${i % 20}` });
      record('stream', reply, streamProblem(reply, expected));
    }
  };

  let recallsInFlight = 0;
  const recallClock = async () => {
    const tickMs = 10;
    const perTick = RECALL_RATE * tickMs / 1000;
    let owed = 0;
    let q = 0;
    const inFlight = [];
    for (let next = performance.now(); running(); next += tickMs) {
      owed += perTick;
      for (; owed >= 1; owed -= 1) {
        if (recallsInFlight >= RECALL_INFLIGHT) {
          kinds.recall.behind += 1;
          continue;
        }
        recallsInFlight += 1;
        const query = queries[q++ % queries.length];
        inFlight.push(post(agents.recall, gateway.url, '/v1/search', { query, limit: 5 }, auth).then((reply) => {
          recallsInFlight -= 1;
          record('recall', reply, reply.status === 200 ? null : `status ${reply.status}: ${reply.text.slice(0, 120)}`);
        }));
        if (inFlight.length > 10_000) inFlight.splice(0, 5_000);
      }
      const wait = next + tickMs - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(inFlight);
  };

  const ingestClock = async () => {
    for (let i = 0; running(); i++) {
      const n = FIXED ? i % 50 : i;
      const at = FIXED ? '2026-06-01T00:00:00Z' : new Date().toISOString();
      const reply = await post(agents.ingest, gateway.url, '/v1/ingest/messages',
        { conversation_id: `load-ingest-${n % 50}`, messages: [{ id: `n${n}-u`, role: 'user', content: `ingest ${n}: the kettle in the lighthouse is broken again`, created_at: at },
                                                            { id: `n${n}-a`, role: 'assistant', content: `noted ${n}`, created_at: at }] }, auth);
      record('ingest', reply, reply.status === 200 ? null : `status ${reply.status}: ${reply.text.slice(0, 120)}`);
      await sleep(1000 / INGEST_RATE);
    }
  };

  const samples = [];
  const sampler = async () => {
    let last = performance.now();
    while (running()) {
      await sleep(Math.min(SAMPLE_MS, Math.max(0, endAt - performance.now())));
      const now = performance.now();
      const row = { t_s: Math.round((now - began) / 1000), rss_mb: Math.round(serverRssMb(gateway.server.pid)) };
      for (const [kind, t] of Object.entries(kinds)) {
        const sorted = t.window.sort((a, b) => a - b);
        row[kind] = { per_s: Math.round(sorted.length / ((now - last) / 1000)), errors: t.windowErrors,
                      p50_ms: Math.round(percentile(sorted, 0.5) ?? 0), p99_ms: Math.round(percentile(sorted, 0.99) ?? 0) };
        t.window = [];
        t.windowErrors = 0;
      }
      last = now;
      samples.push(row);
      log(`t=${row.t_s}s rss ${row.rss_mb} MB | streams ${row.stream.per_s}/s p99 ${row.stream.p99_ms} ms err ${row.stream.errors} | ` +
          `recall ${row.recall.per_s}/s p99 ${row.recall.p99_ms} ms err ${row.recall.errors} | ingest ${row.ingest.per_s}/s p99 ${row.ingest.p99_ms} ms err ${row.ingest.errors}`);
    }
  };

  const rssStart = serverRssMb(gateway.server.pid);
  await Promise.all([...Array.from({ length: STREAMS }, (_, i) => streamClient(i)), recallClock(), ingestClock(), sampler()]);
  const rssEnd = serverRssMb(gateway.server.pid);
  await gateway.stop();

  const result = {
    fixed_archive: FIXED, seconds: SECONDS, streams: STREAMS, recall_rate: RECALL_RATE, recall_inflight: RECALL_INFLIGHT, ingest_rate: INGEST_RATE,
    archive_messages: archived, rss_mb: { start: Math.round(rssStart), end: Math.round(rssEnd) },
    totals: Object.fromEntries(Object.entries(kinds).map(([k, t]) => [k, { requests: t.total, errors: t.errors, behind: t.behind, error_samples: [...t.samples] }])),
    samples,
  };
  mkdirSync(opts.out, { recursive: true });
  const file = join(opts.out, `load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2));

  console.log(`| t (s) | RSS (MB) | streams/s | stream p99 (ms) | recalls/s | recall p50 / p99 (ms) | ingests/s | ingest p99 (ms) | errors |`);
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const s of samples) {
    console.log(`| ${s.t_s} | ${s.rss_mb} | ${s.stream.per_s} | ${s.stream.p99_ms} | ${s.recall.per_s} | ${s.recall.p50_ms} / ${s.recall.p99_ms} | ${s.ingest.per_s} | ${s.ingest.p99_ms} | ${s.stream.errors + s.recall.errors + s.ingest.errors} |`);
  }
  for (const [k, t] of Object.entries(result.totals)) {
    console.log(`${k}: ${t.requests} requests, ${t.errors} errors${t.behind ? `, ${t.behind} recalls not sent (all ${RECALL_INFLIGHT} in flight)` : ''}${t.error_samples.length ? ` — ${t.error_samples.join(' | ')}` : ''}`);
  }
  console.log(`RSS ${result.rss_mb.start} MB at the start, ${result.rss_mb.end} MB at the end; ${file}`);
  const errors = Object.values(result.totals).reduce((n, t) => n + t.errors, 0);
  process.exit(errors ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

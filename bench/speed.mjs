#!/usr/bin/env node
// Ingest rate, recall latency and resident memory of cilia over a synthetic archive that grows
// to each size of --windows. Prints Markdown; writes bench/results/speed.json. See bench/README.md.
import { mkdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { binaryExists, makeTempDir, removeDir, repoRoot, runCli } from '../tests/e2e/lib/server.mjs';
import { ingestAll, openCilia, residentBytes, search, windowCount } from './lib/cilia.mjs';
import { estimateWindows, queryMix, synthConversations } from './lib/synth.mjs';

const CORPUS_START = '2024-06-01T00:00:00Z';
const CORPUS_END = '2026-06-01T00:00:00Z';
const WARMUP_QUERIES = 50;
const MAX_ROUNDS = 8;
const CALIBRATION_SHARE = 0.1; // first step, to learn real windows per estimated window

const { values: opts } = parseArgs({
  options: {
    windows: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    url: { type: 'string' },
    key: { type: 'string', default: process.env.CILIA_API_KEY },
    pid: { type: 'string' },
    'cli-messages': { type: 'string', default: '20000' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});

const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
};

// The growing archive: conversations are drawn from one endless seeded stream.
class Corpus {
  constructor(seed) {
    this.stream = synthConversations({ seed, messages: Infinity, start: CORPUS_START, end: CORPUS_END });
    this.messages = 0;
    this.estimatedWindows = 0;
    this.samples = []; // message texts for exact queries
    this.ingest = { messages: 0, requests: 0, seconds: 0 };
  }

  async growBy(cilia, windows) {
    const goal = this.estimatedWindows + windows;
    while (this.estimatedWindows < goal) {
      const conversation = this.stream.next().value;
      const started = performance.now();
      const done = await ingestAll(cilia, [conversation], { batch: 100 });
      this.ingest.seconds += (performance.now() - started) / 1000;
      this.ingest.messages += done.messages;
      this.ingest.requests += done.requests;
      this.messages += conversation.messages.length;
      this.estimatedWindows += estimateWindows(conversation);
      if (this.samples.length < 5_000) this.samples.push(conversation.messages[this.messages % conversation.messages.length].content);
    }
  }
}

// Grows the archive to about `target` windows, trusting GET /metrics over the estimate.
async function growTo(cilia, corpus, target) {
  let real = await windowCount(cilia);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const current = real ?? corpus.estimatedWindows;
    if (current >= target * 0.97) break;
    if (real !== null && !real) {
      await corpus.growBy(cilia, Math.ceil(target * CALIBRATION_SHARE));
    } else {
      const perEstimated = real ? real / corpus.estimatedWindows : 1;
      await corpus.growBy(cilia, Math.ceil((target - current) / perEstimated));
    }
    real = await windowCount(cilia);
  }
  return real === null ? { windows: corpus.estimatedWindows, source: 'estimate' } : { windows: real, source: '/metrics' };
}

async function measureLatency(cilia, corpus, count) {
  const queries = queryMix({ seed: opts.seed, count: count + WARMUP_QUERIES, samples: corpus.samples });
  const byKind = {};
  const all = [];
  const serverMs = [];
  for (const [i, q] of queries.entries()) {
    const body = { query: q.query, limit: 10, now: CORPUS_END, ...(q.exact ? { exact: true } : {}) };
    const started = performance.now();
    const reply = await search(cilia, body);
    const ms = performance.now() - started;
    if (i < WARMUP_QUERIES) continue;
    all.push(ms);
    if (typeof reply.took_ms === 'number') serverMs.push(reply.took_ms);
    (byKind[q.kind] ??= []).push(ms);
  }
  return {
    client_ms: stats(all),
    server_took_ms: serverMs.length ? stats(serverMs) : null,
    by_kind_client_ms: Object.fromEntries(Object.entries(byKind).sort().map(([kind, values]) => [kind, stats(values)])),
  };
}

async function measureCliIngest(messages) {
  const dir = await makeTempDir('cilia-bench-cli-');
  try {
    const file = join(dir, 'corpus.jsonl');
    const out = createWriteStream(file);
    for (const conversation of synthConversations({ seed: `${opts.seed}-cli`, messages, start: CORPUS_START, end: CORPUS_END })) {
      if (!out.write(JSON.stringify(conversation) + '\n')) await new Promise((r) => out.once('drain', r));
    }
    await new Promise((r) => out.end(r));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir); // runCli runs in the data dir
    const started = performance.now();
    const run = await runCli(['ingest', file], { dataDir, timeoutMs: 3_600_000 });
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`cilia ingest failed (${run.code}): ${run.stderr}`);
    return { messages, seconds, messages_per_second: messages / seconds, summary: run.stdout.trim().slice(0, 500) };
  } finally {
    await removeDir(dir);
  }
}

function markdown(report) {
  const ms = (x) => (x === undefined || x === null ? '–' : x.toFixed(2));
  const lines = ['## speed', ''];
  lines.push('| windows | source | messages | ingest msg/s (API, sync, ≤100/request) | p50 ms | p99 ms | mean ms | server p50/p99 ms | RSS MiB | RSS MiB per 100k windows (total / above empty) |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const point of report.points) {
    const c = point.latency.client_ms;
    const s = point.latency.server_took_ms;
    const mib = (bytes) => (bytes === null ? '–' : (bytes / 2 ** 20).toFixed(0));
    const per = `${mib(point.rss_per_100k_windows_bytes)} / ${mib(point.rss_growth_per_100k_windows_bytes)}`;
    lines.push(`| ${point.windows} | ${point.windows_source} | ${point.messages} | ${point.ingest_messages_per_second.toFixed(0)} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.mean)} | ${s ? `${ms(s.p50)} / ${ms(s.p99)}` : '–'} | ${mib(point.rss_bytes)} | ${per} |`);
  }
  if (report.cli_ingest) lines.push('', `cilia ingest (JSONL, ${report.cli_ingest.messages} messages): ${report.cli_ingest.messages_per_second.toFixed(0)} messages/s`);
  if (report.cli_ingest_error) lines.push('', `cilia ingest failed: ${report.cli_ingest_error}`);
  lines.push('', 'latency by query kind at the largest size (client ms, p50 / p99):', '');
  for (const [kind, s] of Object.entries(report.points.at(-1).latency.by_kind_client_ms)) lines.push(`- ${kind} (${s.n}): ${ms(s.p50)} / ${ms(s.p99)}`);
  return lines.join('\n');
}

async function main() {
  const targets = opts.windows.split(',').map(Number).filter((n) => n > 0).sort((a, b) => a - b);
  const queryCount = Number(opts.queries);
  const cilia = await openCilia({ url: opts.url, key: opts.key });
  const pid = opts.pid ? Number(opts.pid) : cilia.pid;
  const report = { generated_at: new Date().toISOString(), seed: opts.seed, queries: queryCount, rss_empty_bytes: residentBytes(pid), points: [] };
  const corpus = new Corpus(opts.seed);
  try {
    for (const target of targets) {
      const { windows, source } = await growTo(cilia, corpus, target);
      console.error(`${windows} windows (${source}), ${corpus.messages} messages; measuring ${queryCount} queries`);
      const latency = await measureLatency(cilia, corpus, queryCount);
      const rss = residentBytes(pid);
      report.points.push({
        target_windows: target,
        windows,
        windows_source: source,
        messages: corpus.messages,
        ingest_messages_per_second: corpus.ingest.messages / corpus.ingest.seconds,
        ingest_mean_request_messages: corpus.ingest.messages / corpus.ingest.requests,
        latency,
        rss_bytes: rss,
        rss_per_100k_windows_bytes: rss === null ? null : (rss / windows) * 100_000,
        rss_growth_per_100k_windows_bytes: rss === null || report.rss_empty_bytes === null ? null : ((rss - report.rss_empty_bytes) / windows) * 100_000,
      });
    }
  } finally {
    await cilia.stop();
  }
  if (binaryExists() && Number(opts['cli-messages']) > 0) {
    try {
      report.cli_ingest = await measureCliIngest(Number(opts['cli-messages']));
    } catch (error) {
      report.cli_ingest_error = String(error.message ?? error); // keep the API figures
    }
  }

  console.log(markdown(report));
  mkdirSync(opts.out, { recursive: true });
  const file = join(opts.out, 'speed.json');
  writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
  console.error(`wrote ${file}`);
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});

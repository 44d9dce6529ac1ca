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
    // Grow with `cilia ingest` (one transaction per file of --bulk-file messages) into a data dir,
    // then serve it: how a 1M-window archive is reached in reasonable time. The API ingest rate
    // is then not measured; the CLI's rate over the growth is reported instead.
    bulk: { type: 'boolean', default: false },
    'bulk-file': { type: 'string', default: '500000' },
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

  // The conversations for `windows` more estimated windows, without sending them.
  *draw(windows) {
    const goal = this.estimatedWindows + windows;
    while (this.estimatedWindows < goal) {
      const conversation = this.stream.next().value;
      this.messages += conversation.messages.length;
      this.estimatedWindows += estimateWindows(conversation);
      if (this.samples.length < 5_000) this.samples.push(conversation.messages[this.messages % conversation.messages.length].content);
      yield conversation;
    }
  }

  async growBy(cilia, windows) {
    for (const conversation of this.draw(windows)) {
      const started = performance.now();
      const done = await ingestAll(cilia, [conversation], { batch: 100 });
      this.ingest.seconds += (performance.now() - started) / 1000;
      this.ingest.messages += done.messages;
      this.ingest.requests += done.requests;
    }
  }

  // `cilia ingest` of the next conversations, at most `fileMessages` per file, into a data dir no
  // server holds. Returns the windows the archive has afterwards.
  async bulkGrowBy(dataDir, windows, fileMessages) {
    const conversations = this.draw(windows);
    let windowsNow = null;
    for (let more = true; more; ) {
      const file = join(dataDir, 'bulk.jsonl');
      const out = createWriteStream(file);
      let inFile = 0;
      more = false;
      // Not for-of: leaving such a loop early would close the generator.
      for (let next = conversations.next(); !next.done; next = conversations.next()) {
        const conversation = next.value;
        if (!out.write(JSON.stringify(conversation) + '\n')) await new Promise((r) => out.once('drain', r));
        inFile += conversation.messages.length;
        if (inFile >= fileMessages) {
          more = true;
          break;
        }
      }
      await new Promise((r) => out.end(r));
      const started = performance.now();
      const run = await runCli(['ingest', file], { dataDir, timeoutMs: 7_200_000 });
      this.ingest.seconds += (performance.now() - started) / 1000;
      if (run.code !== 0) throw new Error(`cilia ingest failed (${run.code}): ${run.stderr}`);
      this.ingest.messages += inFile;
      this.ingest.requests += 1;
      windowsNow = Number(/(\d+) windows indexed/.exec(run.stdout)?.[1] ?? NaN);
      console.error(`bulk: ${this.messages} messages, ${windowsNow} windows (${run.stdout.trim()})`);
    }
    return windowsNow;
  }
}

// The windows per estimated window, from what the archive holds so far (1 before it holds any).
const perEstimated = (real, corpus) => (real ? real / corpus.estimatedWindows : 1);

// Grows the archive to about `target` windows, trusting GET /metrics over the estimate.
async function growTo(cilia, corpus, target) {
  let real = await windowCount(cilia);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const current = real ?? corpus.estimatedWindows;
    if (current >= target * 0.97) break;
    if (real !== null && !real) {
      await corpus.growBy(cilia, Math.ceil(target * CALIBRATION_SHARE));
    } else {
      await corpus.growBy(cilia, Math.ceil((target - current) / perEstimated(real, corpus)));
    }
    real = await windowCount(cilia);
  }
  return real === null ? { windows: corpus.estimatedWindows, source: 'estimate' } : { windows: real, source: '/metrics' };
}

// The same with `cilia ingest`, while no server runs on the data dir.
async function bulkGrowTo(dataDir, corpus, target, fileMessages) {
  let real = corpus.bulkWindows ?? 0;
  for (let round = 0; round < MAX_ROUNDS && real < target * 0.97; round++) {
    const share = real ? (target - real) / perEstimated(real, corpus) : target * CALIBRATION_SHARE;
    real = await corpus.bulkGrowBy(dataDir, Math.ceil(share), fileMessages);
  }
  corpus.bulkWindows = real;
  return { windows: real, source: 'cilia ingest' };
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
  const ingest = report.bulk ? 'ingest msg/s (`cilia ingest`, cumulative)' : 'ingest msg/s (API, sync, ≤100/request)';
  lines.push(`| windows | source | messages | ${ingest} | p50 ms | p99 ms | mean ms | server p50/p99 ms | RSS MiB | RSS MiB per 100k windows (total / above empty) |`);
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
  if (opts.bulk && opts.url) throw new Error('--bulk grows its own data dir; it does not take --url');
  const bulkDir = opts.bulk ? await makeTempDir('cilia-bench-bulk-') : null;
  const report = { generated_at: new Date().toISOString(), seed: opts.seed, queries: queryCount, bulk: opts.bulk, rss_empty_bytes: null, points: [] };
  const corpus = new Corpus(opts.seed);
  // Without --bulk one server runs throughout; with it, one per size, after `cilia ingest`.
  let cilia = null;
  try {
    for (const target of targets) {
      let grown;
      if (opts.bulk) {
        grown = await bulkGrowTo(bulkDir, corpus, target, Number(opts['bulk-file']));
        cilia = await openCilia({ dataDir: bulkDir, startTimeoutMs: 1_800_000 }); // loads every index
      } else {
        cilia ??= await openCilia({ url: opts.url, key: opts.key });
        report.rss_empty_bytes ??= residentBytes(opts.pid ? Number(opts.pid) : cilia.pid);
        grown = await growTo(cilia, corpus, target);
      }
      const pid = opts.pid ? Number(opts.pid) : cilia.pid;
      const { windows, source } = grown;
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
      if (opts.bulk) {
        await cilia.stop();
        cilia = null;
      }
    }
  } finally {
    await cilia?.stop();
    if (bulkDir) await removeDir(bulkDir);
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

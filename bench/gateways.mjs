#!/usr/bin/env node
// Several gateways on PostgreSQL (issue 17). Two parts:
//   stores    the same synthetic corpus ingested through the API into one cilia on SQLite and one
//             on PostgreSQL, then the same recalls on each: ingest msg/s, recall p50/p99;
//   gateways  1, 2, 4 … gateways (data dirs of their own, one database) under a mixed load for
//             --seconds (bench/lib/mixed.mjs): recall throughput and latency, ingest rate,
//             freshness across gateways, and the checks (nothing lost, nothing stored twice, no
//             job run twice, no errors).
// Needs a PostgreSQL: run inside scripts/pg-test.sh (CILIA_TEST_PG_URL and
// CILIA_TEST_PG_SUPERUSER_URL). Prints Markdown; writes bench/results/gateways.json.
//   bash scripts/pg-test.sh run node bench/gateways.mjs
//   bash scripts/pg-test.sh run node bench/gateways.mjs --quick     # about a minute
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { makeTempDir, postgresEnv, removeDir, repoRoot, startServer } from '../tests/e2e/lib/server.mjs';
import { ingestAll, search } from './lib/cilia.mjs';
import { checkDatabase, problemsOf, runMixedLoad, startGateways, stats } from './lib/mixed.mjs';
import { queryMix, synthConversations } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    parts: { type: 'string', default: 'stores,gateways' },
    messages: { type: 'string', default: '20000' },
    queries: { type: 'string', default: '300' },
    gateways: { type: 'string', default: '1,2,4' },
    seconds: { type: 'string', default: '60' },
    'archive-messages': { type: 'string', default: '3000' },
    'recall-clients': { type: 'string', default: '8' },
    'ingest-batch': { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});
// --quick: the test-sized run, both parts small.
if (opts.quick) Object.assign(opts, { messages: '2000', queries: '100', gateways: '2', seconds: '15', 'archive-messages': '500' });
const WARMUP_QUERIES = 30;
const CORPUS_END = '2026-06-01T00:00:00Z';
const log = (message) => console.error(message);

// One cilia on `store`, the corpus through POST /v1/ingest/messages?sync=true (≤100 messages a
// request, as bench/speed.mjs sends them), then the recalls one at a time.
async function storeRun(store) {
  const dataDir = await makeTempDir('cilia-bench-store-');
  try {
    const env = store === 'postgres' ? await postgresEnv(dataDir) : {};
    const server = await startServer({ dataDir, env, startTimeoutMs: 120_000 });
    try {
      const conversations = [...synthConversations({ seed: opts.seed, messages: Number(opts.messages), end: CORPUS_END })];
      const started = performance.now();
      const done = await ingestAll(server, conversations, { batch: 100 });
      const ingestSeconds = (performance.now() - started) / 1000;
      const samples = conversations.flatMap((c) => c.messages.filter((_, i) => i % 7 === 0).map((m) => m.content));
      const queries = queryMix({ seed: opts.seed, count: Number(opts.queries) + WARMUP_QUERIES, samples });
      const client = [];
      const took = [];
      for (const [i, q] of queries.entries()) {
        const began = performance.now();
        const reply = await search(server, { query: q.query, limit: 10, now: CORPUS_END, ...(q.exact ? { exact: true } : {}) });
        if (i < WARMUP_QUERIES) continue;
        client.push(performance.now() - began);
        if (typeof reply.took_ms === 'number') took.push(reply.took_ms);
      }
      return { store, messages: done.messages, requests: done.requests, ingest_seconds: ingestSeconds, ingest_messages_per_s: done.messages / ingestSeconds, recall_client_ms: stats(client), recall_server_ms: stats(took) };
    } finally {
      await server.stop({ keepData: true });
    }
  } finally {
    await removeDir(dataDir);
  }
}

async function gatewaysRun(count) {
  log(`${count} gateway(s): an archive of ${opts['archive-messages']} messages (cilia ingest), then ${opts.seconds} s of mixed load`);
  const fleet = await startGateways(count, { archiveMessages: Number(opts['archive-messages']), seed: opts.seed });
  try {
    const result = await runMixedLoad(fleet, {
      seconds: Number(opts.seconds),
      seed: opts.seed,
      recallClients: Number(opts['recall-clients']),
      ingestBatch: Number(opts['ingest-batch']),
    });
    const checks = await checkDatabase(fleet.database, result);
    const { acknowledged, ...rest } = result;
    return { ...rest, archive_messages: fleet.archive.messages, checks };
  } finally {
    await fleet.stop();
  }
}

const f = (x, digits = 1) => (x === null || x === undefined ? '–' : x.toFixed(digits));
const n = (x) => Math.round(x).toLocaleString('en-US');

function markdown(report) {
  const lines = [];
  if (report.stores.length) {
    lines.push(`### Stores: ${n(report.stores[0].messages)} messages through the API, then ${opts.queries} recalls`, '');
    lines.push('| store | ingest msg/s (sync, ≤100/request) | recall p50 / p99 ms (client) | server `took_ms` p50 / p99 |');
    lines.push('|---|---|---|---|');
    for (const s of report.stores) {
      lines.push(`| ${s.store} | ${n(s.ingest_messages_per_s)} | ${f(s.recall_client_ms.p50, 2)} / ${f(s.recall_client_ms.p99, 2)} | ${f(s.recall_server_ms.p50, 2)} / ${f(s.recall_server_ms.p99, 2)} |`);
    }
    lines.push('');
  }
  if (report.runs.length) {
    const first = report.runs[0];
    lines.push(`### Gateways on one database: ${first.seconds.toFixed(0)} s of mixed load on an archive of ${n(first.archive_messages)} messages`, '');
    lines.push('| gateways | recalls/s | recall p50 / p99 ms | ingest msg/s | chat turns (p50 ms) | fresh, same gateway p50 / p99 / max ms | fresh, other gateways p50 / p99 / max ms (missed of probes) | CPU cores: machine busy / gateways / PostgreSQL / driver | load average start / end |');
    lines.push('|---|---|---|---|---|---|---|---|---|');
    for (const r of report.runs) {
      const fr = r.freshness;
      const cores = (s) => f(s / r.seconds, 2);
      const other = r.gateways > 1 ? `${f(fr.other.p50, 0)} / ${f(fr.other.p99, 0)} / ${f(fr.other.max, 0)} (${fr.other.misses} of ${fr.probes * (r.gateways - 1)})` : '–';
      lines.push(`| ${r.gateways} | ${n(r.recall.per_s)} | ${f(r.recall.p50)} / ${f(r.recall.p99)} | ${n(r.ingest.messages_per_s)} | ${r.chat.turns} (${f(r.chat.p50, 0)}) | ${f(fr.same.p50, 0)} / ${f(fr.same.p99, 0)} / ${f(fr.same.max, 0)} | ${other} | ${cores(r.cpu.machine_busy_s)} / ${cores(r.cpu.gateways_s)} / ${cores(r.cpu.postgres_s)} / ${cores(r.cpu.driver_s)} | ${r.cpu.load_average.map((x) => x.toFixed(1)).join(' / ')} |`);
    }
    lines.push('', '| gateways | acknowledged messages | lost | stored twice | resent requests (stored again) | chat conversations off | job runs | job runs twice | errors |');
    lines.push('|---|---|---|---|---|---|---|---|---|');
    for (const r of report.runs) {
      const c = r.checks;
      lines.push(`| ${r.gateways} | ${n(c.acknowledged)} | ${c.lost} | ${c.twice} | ${r.ingest.resent} (${c.resent_stored}) | ${c.chat_mismatch.length} | ${c.job_runs} (${Object.entries(c.jobs).map(([k, j]) => `${k.split('/')[1]} ${j.runs}`).join(', ')}) | ${c.jobs_twice.length} | ${r.errors.length} |`);
    }
    for (const r of report.runs) {
      for (const problem of [...r.errors.slice(0, 5), ...r.checks.jobs_twice, ...r.checks.chat_mismatch]) lines.push(`- ${r.gateways} gateways: ${problem}`);
    }
  }
  return lines.join('\n');
}

async function main() {
  if (!process.env.CILIA_TEST_PG_URL) throw new Error('needs a PostgreSQL: bash scripts/pg-test.sh run node bench/gateways.mjs');
  const parts = new Set(opts.parts.split(','));
  const report = { generated_at: new Date().toISOString(), options: opts, stores: [], runs: [] };
  if (parts.has('stores')) {
    for (const store of ['sqlite', 'postgres']) {
      log(`stores: ${opts.messages} messages into ${store}`);
      report.stores.push(await storeRun(store));
    }
  }
  if (parts.has('gateways')) {
    for (const count of opts.gateways.split(',').map(Number)) report.runs.push(await gatewaysRun(count));
  }
  console.log(markdown(report));
  mkdirSync(opts.out, { recursive: true });
  const file = join(opts.out, 'gateways.json');
  writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
  log(`wrote ${file}`);
  const problems = report.runs.flatMap((r) => problemsOf(r).map((p) => `${r.gateways} gateways: ${p}`));
  for (const p of problems) log(p);
  process.exit(problems.length ? 1 : 0);
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});

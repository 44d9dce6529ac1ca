#!/usr/bin/env node
// kill -9 at random moments of ingest, extraction and the nightly job, in a loop, on one data
// dir. Each round starts `cilia serve`, sends ingest batches from three clients while the
// extraction and nightly jobs run, and kills the server at a random moment. Between rounds,
// with nothing running, the database is checked for duplicated derived data; after the restart
// every message the server acknowledged (HTTP 200) must be there with the content sent,
// byte-identical. The last round lets the jobs finish and checks everything once more.
//
//   node scripts/crash-loop.mjs [--rounds 200] [--seed 1] [--keep]
//
// Needs build/cilia (or CILIA_BIN) and the sqlite3 shell. Talks only to 127.0.0.1. Prints
// one line a round and a summary ending "crash-loop: N passed, N failed"; exits 1 on a failure.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { gatewayConfig, startFakeUpstream } from '../tests/e2e/lib/gateway.mjs';
import { listAll, messageIdOf } from '../tests/e2e/lib/replies.mjs';
import { makeTempDir, removeDir, startServer } from '../tests/e2e/lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(opts.rounds);

// A small deterministic generator, so a failing run can be repeated with its seed.
let state = Number(opts.seed) >>> 0 || 1;
function random() {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 4294967296;
}
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const CITIES = ['Porto', 'Chengdu', '北京', 'Lisbon', 'Kyoto', 'Oslo', 'Tromsø'];

// The text of message i of a round: unique, with words the scripted extraction quotes.
function messageText(round, client, i) {
  const city = CITIES[(round + i) % CITIES.length];
  return `Round ${round} client ${client} note ${i}: I moved to ${city} last spring, and my cat is named Miso. 🐈 第${i}句`;
}

// Content alternates between a string and a text-parts array: both must come back as sent.
function messageContent(round, client, i) {
  const text = messageText(round, client, i);
  return i % 3 === 2 ? [{ type: 'text', text }, { type: 'text', text: `(${client}/${i})` }] : text;
}

const SCRIPT = [
  {
    match: 'You excerpt memories',
    reply: JSON.stringify({
      items: [
        { date: yesterday, content: 'Her cat is named Miso.', quote: 'my cat is named Miso', type: 'fact', fact_key: 'cat_name', confidence: 0.95 },
        { date: yesterday, content: 'She moved last spring.', quote: 'last spring', type: 'event', fact_key: null, confidence: 0.9 },
      ],
    }),
  },
  { match: "day's log", reply: JSON.stringify({ title: 'Notes', entries: [{ text: 'She wrote notes about her cat Miso', messages: [1] }] }) },
  { match: 'running digest', reply: JSON.stringify({ digest: 'She keeps writing notes about Miso.' }) },
  { match: 'Condense them', reply: JSON.stringify({ summary: 'A week of notes.' }) },
];

// Derived data that must never be there twice, as SQL returning the duplicated keys.
const DUPLICATE_CHECKS = {
  'messages (caller id)': 'SELECT conversation_id, caller_id FROM messages WHERE caller_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1',
  windows: 'SELECT conversation_id, first_seq, first_segment FROM windows GROUP BY 1, 2, 3 HAVING count(*) > 1',
  excerpts: "SELECT message_id, span_start, span_end, content FROM excerpts WHERE status = 'active' GROUP BY 1, 2, 3, 4 HAVING count(*) > 1",
  candidates: "SELECT quote, content FROM candidates WHERE status = 'pending' GROUP BY 1, 2 HAVING count(*) > 1",
  'extraction batches': 'SELECT conversation_id, first_seq FROM extraction_batches GROUP BY 1, 2 HAVING count(*) > 1',
  'window vectors': 'SELECT window_id, embedder FROM window_vectors GROUP BY 1, 2 HAVING count(*) > 1',
};

const dbPath = (dataDir) => join(dataDir, 'ns', 'default', 'cilia.db');

function sql(dataDir, query) {
  const db = dbPath(dataDir);
  return execFileSync('sqlite3', ['-bail', db, query], { encoding: 'utf8' }).trim();
}

function duplicateProblems(dataDir) {
  const problems = [];
  if (!existsSync(dbPath(dataDir))) return problems;  // before the first start
  // Killed while the namespace was being opened: its migrations are one transaction, so either
  // every table is there or none is.
  if (sql(dataDir, "SELECT count(*) FROM sqlite_master WHERE name = 'messages'") === '0') return problems;
  for (const [what, query] of Object.entries(DUPLICATE_CHECKS)) {
    const rows = sql(dataDir, query);
    if (rows) problems.push(`${what} duplicated: ${rows.split('\n').slice(0, 3).join(' | ')}`);
  }
  const integrity = sql(dataDir, 'PRAGMA integrity_check');
  if (integrity !== 'ok') problems.push(`integrity_check: ${integrity.slice(0, 200)}`);
  return problems;
}

// JSON text with object keys sorted: cilia keeps a parts array as a JSON value (nlohmann
// writes keys in order), so key order is the one thing that may differ; every string, byte for
// byte, may not.
const canonical = (value) => JSON.stringify(value, (_, v) =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v);

// Every acknowledged message, as sent, by conversation: {id -> {role, content}}.
const acknowledged = new Map();
let acknowledgedCount = 0;

async function verifyAcknowledged(server, conversations) {
  const problems = [];
  for (const conversation of conversations) {
    const expected = acknowledged.get(conversation);
    if (!expected || expected.size === 0) continue;
    const { items } = await listAll(server, `/v1/conversations/${encodeURIComponent(conversation)}/messages`, { pageLimit: 1000 });
    const stored = new Map(items.map((m) => [messageIdOf(m), m]));
    for (const [id, sent] of expected) {
      const got = stored.get(id);
      if (!got) problems.push(`${conversation}/${id}: acknowledged, missing after restart`);
      else if (canonical(got.content) !== canonical(sent.content) || got.role !== sent.role) {
        problems.push(`${conversation}/${id}: content differs: ${canonical(got.content).slice(0, 80)}`);
      }
    }
    if (stored.size !== items.length) problems.push(`${conversation}: a message listed twice`);
  }
  return problems;
}

// One client: ingest batches into its conversation until the server dies.
async function ingestClient(server, round, client, counters) {
  const conversation = `crash-${client}`;
  if (!acknowledged.has(conversation)) acknowledged.set(conversation, new Map());
  for (let batch = 0; ; batch++) {
    const messages = Array.from({ length: between(1, 4) }, (_, k) => {
      const i = batch * 10 + k;
      return {
        id: `r${round}-b${batch}-${k}`,
        role: i % 2 ? 'assistant' : 'user',
        content: messageContent(round, client, i),
        created_at: `${yesterday}T${String(10 + (round % 12)).padStart(2, '0')}:${String(batch % 60).padStart(2, '0')}:${String(k).padStart(2, '0')}Z`,
      };
    });
    let reply;
    try {
      reply = await server.api(`/v1/ingest/messages${batch % 2 ? '?sync=true' : ''}`, {
        body: { conversation_id: conversation, messages },
        timeoutMs: 10_000,
      });
    } catch {
      return;  // the server is gone: whatever was not answered was not acknowledged
    }
    if (reply.status === 200) {
      for (const m of messages) acknowledged.get(conversation).set(m.id, { role: m.role, content: m.content });
      acknowledgedCount += messages.length;
      counters.acked += messages.length;
    } else {
      counters.refused += 1;
      counters.lastRefusal = `${reply.status} ${reply.text.slice(0, 120)}`;
    }
  }
}

async function runJob(server, job, counters) {
  try {
    const reply = await server.api(`/v1/jobs/${job}/run`, { method: 'POST', timeoutMs: 30_000 });
    if (reply.status === 200) counters[job] += 1;
  } catch {
    // killed mid-run: the point of the exercise
  }
}

async function main() {
  const upstream = await startFakeUpstream();
  await upstream.script(SCRIPT);
  const dataDir = await makeTempDir('cilia-crash-loop-');
  const config = gatewayConfig({ upstreamUrl: upstream.url });
  const env = { CILIA_JOBS_ENABLED: 'false', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
  const start = () => startServer({ dataDir, config, env });
  const failures = [];
  const totals = { acked: 0, refused: 0, extract: 0, nightly: 0 };
  const began = Date.now();
  let touched = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const problems = duplicateProblems(dataDir);
      const server = await start();
      problems.push(...(await verifyAcknowledged(server, touched)));
      const counters = { acked: 0, refused: 0, extract: 0, nightly: 0, lastRefusal: '' };
      const clients = [0, 1, 2].map((client) => ingestClient(server, round, client, counters));
      const jobs = [sleep(between(0, 300)).then(() => runJob(server, 'extract', counters)),
                    sleep(between(0, 300)).then(() => runJob(server, 'nightly', counters))];
      const killAfter = between(20, 700);
      await sleep(killAfter);
      await server.kill();
      await Promise.allSettled([...clients, ...jobs]);
      touched = ['crash-0', 'crash-1', 'crash-2'];
      for (const k of ['acked', 'refused', 'extract', 'nightly']) totals[k] += counters[k];
      const note = problems.length ? `FAILED: ${problems.slice(0, 3).join('; ')}` : 'ok';
      console.log(`round ${round}: killed after ${killAfter} ms; acknowledged ${counters.acked}, refused ${counters.refused}` +
                  `${counters.lastRefusal ? ` (${counters.lastRefusal})` : ''}, jobs done ${counters.extract + counters.nightly}; ${note}`);
      if (problems.length) failures.push({ round, problems });
    }
    // The end: no kill. Derived data catches up and stays single.
    const server = await start();
    const final = await verifyAcknowledged(server, [...acknowledged.keys()]);
    for (const job of ['extract', 'nightly']) {
      const reply = await server.api(`/v1/jobs/${job}/run`, { method: 'POST', timeoutMs: 120_000 });
      if (reply.status !== 200) final.push(`final ${job} run: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
    }
    await server.stop({ keepData: true });
    final.push(...duplicateProblems(dataDir));
    const unindexed = sql(dataDir, 'SELECT count(*) FROM conversations WHERE indexed_seq < next_seq');
    if (unindexed !== '0') final.push(`${unindexed} conversations left with unwindowed messages`);
    const stored = Number(sql(dataDir, 'SELECT count(*) FROM messages'));
    if (stored < acknowledgedCount) final.push(`${stored} messages stored, ${acknowledgedCount} acknowledged`);
    if (final.length) failures.push({ round: 'final', problems: final });
    const seconds = ((Date.now() - began) / 1000).toFixed(0);
    console.log(`crash-loop: ${ROUNDS} rounds in ${seconds} s, ${acknowledgedCount} messages acknowledged ` +
                `(${stored} stored), ${totals.refused} ingest requests refused, ${totals.extract} extraction and ` +
                `${totals.nightly} nightly runs finished before a kill; excerpts ${sql(dataDir, 'SELECT count(*) FROM excerpts')}, ` +
                `windows ${sql(dataDir, 'SELECT count(*) FROM windows')}, day logs ${sql(dataDir, 'SELECT count(*) FROM daily_logs')}`);
    for (const f of failures) console.log(`  round ${f.round}: ${f.problems.join('; ')}`);
  } finally {
    await upstream.stop();
    if (opts.keep) console.log(`data dir kept: ${dataDir}`);
    else await removeDir(dataDir);
  }
  const failedRounds = failures.length;
  console.log(`crash-loop: ${ROUNDS + 1 - failedRounds} passed, ${failedRounds} failed`);
  process.exit(failedRounds ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Several gateways on one PostgreSQL database under a mixed load (issue 17), shared by
// bench/gateways.mjs and tests/e2e/gateways.test.mjs: ingest through gateway 0, recalls spread
// over all, chat turns through each (a conversation's turns go round the gateways), the
// background jobs of every gateway's scheduler, and freshness probes (a message ingested through
// gateway 0, then searched for through every gateway). Afterwards the database is read to check
// that every acknowledged message is stored exactly once and no job ran twice.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { startFakeUpstream, startGateway } from '../../tests/e2e/lib/gateway.mjs';
import { makeTempDir, postgresEnv, psqlSuper, removeDir, runCli, storeDatabaseOf } from '../../tests/e2e/lib/server.mjs';
import { queryMix, synthConversations } from './synth.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => (sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] : null);
export const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? null };
};

// The shortest period of any job under JOB_ENV: extract every minute. Retention runs hourly,
// nightly daily, and a failed run is tried again an hour later; so two scheduled runs of one job
// in one namespace that start less than this apart are one period's work done twice.
export const JOB_PERIOD_MS = 60_000;
const JOB_ENV = { CILIA_EXTRACTION_INTERVAL_MINUTES: '1', CILIA_JOBS_RETENTION_INTERVAL_HOURS: '1' };
// The extraction job's model call, answered by the fake: nothing to keep.
const EXTRACTION = { match: 'You excerpt memories', reply: '{"items": []}' };

// A word no synthetic message holds, so a search for it finds the probe and nothing else.
const uniqueWord = () => 'zq' + [...randomBytes(8)].map((b) => String.fromCharCode(97 + (b % 26))).join('');

// CPU seconds a process has used (utime + stime), from /proc.
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// Busy and total CPU seconds of the whole machine, from /proc/stat.
function machineCpu() {
  const values = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + values[4];
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

// The 1-minute load average of the machine, which other work shares.
const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

// The PostgreSQL cluster's processes (the postmaster's children, found through the data
// directory's postmaster.pid; the cluster is local in every run here). `cpu(since)` is their
// CPU seconds, less what the processes of `since` (an earlier cpu()) had used then; a process
// that ended between the two is not counted.
async function postgresProcesses(database) {
  const dataDirectory = (await psqlSuper('SHOW data_directory', { database })).trim();
  const postmaster = Number(readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = () =>
    readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
      } catch {
        return false; // ended meanwhile
      }
    });
  return {
    cpu(since) {
      const now = { total: 0, by: new Map() };
      for (const pid of [String(postmaster), ...children()]) {
        try {
          now.by.set(pid, cpuSeconds(pid));
        } catch {
          // ended meanwhile
        }
      }
      if (!since) return now;
      let seconds = 0;
      for (const [pid, used] of now.by) seconds += used - (since.by.get(pid) ?? 0);
      return seconds;
    },
  };
}

// Starts `count` gateways, each on a data dir of its own, all on gateway 0's database, with the
// scheduler's jobs at their shortest periods and one fake upstream. The archive the load runs on,
// `archiveMessages` synthetic messages, is loaded first with `cilia ingest`, so that the
// namespace exists when the gateways start together and every scheduler's first check (at its
// start) finds the same jobs due. `samples` are message texts for the exact queries.
export async function startGateways(count, { archiveMessages, seed = 1 }) {
  const upstream = await startFakeUpstream();
  await upstream.script([EXTRACTION]);
  const dirs = [];
  const gateways = [];
  let samples;
  try {
    for (let i = 0; i < count; i++) dirs.push(await makeTempDir('cilia-gateways-'));
    const store = await postgresEnv(dirs[0]);
    const conversations = [...synthConversations({ seed: `${seed}-archive`, messages: archiveMessages, idPrefix: 'archive' })];
    samples = conversations.flatMap((c) => c.messages.filter((_, i) => i % 7 === 0).map((m) => m.content));
    const file = join(dirs[0], 'archive.jsonl');
    await writeFile(file, conversations.map((c) => JSON.stringify(c) + '\n').join(''));
    const loaded = await runCli(['ingest', file], { dataDir: dirs[0], env: store, timeoutMs: 600_000 });
    if (loaded.code !== 0) throw new Error(`cilia ingest of the archive: ${loaded.code} ${loaded.stderr}`);
    await rm(file);
    const started = await Promise.allSettled(dirs.map((dataDir) => startGateway({ upstream, dataDir, env: { ...store, ...JOB_ENV } })));
    gateways.push(...started.filter((s) => s.status === 'fulfilled').map((s) => s.value));
    const refused = started.find((s) => s.status === 'rejected');
    if (refused) throw refused.reason;
  } catch (error) {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream.stop();
    for (const dir of dirs.reverse()) await removeDir(dir);
    throw error;
  }
  return {
    gateways,
    upstream,
    database: storeDatabaseOf(dirs[0]),
    archive: { messages: archiveMessages, samples },
    async stop() {
      await Promise.all(gateways.map((g) => g.stop()));
      await upstream.stop();
      // The first dir last: removing it drops the database.
      for (const dir of dirs.reverse()) await removeDir(dir);
    },
  };
}

// Runs the mixed load for `seconds` on started gateways and returns what happened.
// Options: recallClients (closed-loop clients, spread round the gateways), ingestBatch (messages
// a request), chatPauseMs (between a client's turns), probeEveryMs and probeCapMs (freshness),
// resendEvery (every n-th ingest request is sent again, through another gateway).
export async function runMixedLoad(
  { gateways, database, archive: { samples } },
  { seconds, seed = 1, recallClients = 8, ingestBatch = 20, chatPauseMs = 1000, probeEveryMs = 2000, probeCapMs = 5000, resendEvery = 10 },
) {
  const count = gateways.length;
  const errors = [];
  const fail = (what, reply) => {
    if (errors.length < 1000) errors.push(`${what}: ${reply.status} ${reply.text.slice(0, 160)}`);
  };
  const began = performance.now();
  const endAt = began + seconds * 1000;
  const running = () => performance.now() < endAt;

  const acknowledged = new Map(); // conversation id -> message ids stored through an acknowledged ingest
  const acknowledge = (body) => {
    const ids = acknowledged.get(body.conversation_id) ?? new Set();
    for (const m of body.messages) ids.add(m.id);
    acknowledged.set(body.conversation_id, ids);
  };

  // Ingest: one client through gateway 0, the synthetic conversations in requests of
  // ingestBatch; every resendEvery-th request again through the next gateway, as a client that
  // retries elsewhere would, which must store nothing.
  const ingest = { requests: 0, messages: 0, resent: 0, resentStored: 0, ms: [] };
  const ingestClient = async () => {
    const stream = synthConversations({ seed: `${seed}-live`, messages: Infinity, start: '2026-01-01T00:00:00Z', end: '2026-06-01T00:00:00Z', idPrefix: 'live' });
    while (running()) {
      const conversation = stream.next().value;
      for (let from = 0; from < conversation.messages.length && running(); from += ingestBatch) {
        const body = { ...conversation, messages: conversation.messages.slice(from, from + ingestBatch) };
        const started = performance.now();
        const reply = await gateways[0].api('/v1/ingest/messages?sync=true', { body });
        if (reply.status !== 200) {
          fail('ingest', reply);
          continue;
        }
        ingest.ms.push(performance.now() - started);
        ingest.requests += 1;
        ingest.messages += body.messages.length;
        acknowledge(body);
        if (ingest.requests % resendEvery === 0) {
          const other = count > 1 ? 1 + (ingest.resent % (count - 1)) : 0;
          const again = await gateways[other].api('/v1/ingest/messages?sync=true', { body });
          ingest.resent += 1;
          if (again.status !== 200) fail('ingest again', again);
          else ingest.resentStored += again.json.stored;
        }
      }
    }
  };

  // Freshness: a probe message with a word of its own through gateway 0 (sync), then every
  // gateway searches for the word until a result cites the probe, for at most probeCapMs.
  const freshness = { same: [], other: [], sameMisses: 0, otherMisses: 0, probes: 0, searches: 0 };
  const probeOne = async (k) => {
    const word = uniqueWord();
    const body = { conversation_id: `probe-${k}`, messages: [{ id: `probe-${k}`, role: 'user', content: `A note to find again: ${word} by the lighthouse.` }] };
    const reply = await gateways[0].api('/v1/ingest/messages?sync=true', { body });
    if (reply.status !== 200) return fail('probe ingest', reply);
    acknowledge(body);
    freshness.probes += 1;
    const acked = performance.now();
    await Promise.all(gateways.map(async (gateway, g) => {
      const kind = g === 0 ? 'same' : 'other';
      for (;;) {
        const found = await gateway.api('/v1/search', { body: { query: word, limit: 5 } });
        freshness.searches += 1;
        if (found.status !== 200) return fail('probe search', found);
        const elapsed = performance.now() - acked;
        if (found.json.results.some((r) => r.message_ids.includes(`probe-${k}`))) return freshness[kind].push(elapsed);
        if (elapsed > probeCapMs) return (freshness[`${kind}Misses`] += 1);
        // Fine steps while it matters, coarse ones once it is late.
        await sleep(elapsed < 1000 ? 20 : 200);
      }
    }));
  };
  const probeClock = async () => {
    const inFlight = [];
    for (let k = 0; running(); k++) {
      inFlight.push(probeOne(k));
      await sleep(probeEveryMs);
    }
    await Promise.all(inFlight);
  };

  // Recall: closed-loop clients, client c on gateway c % count.
  const queries = queryMix({ seed, count: 2000, samples });
  const recall = { ms: [], byGateway: Array(count).fill(0) };
  const recallClient = async (c) => {
    const gateway = gateways[c % count];
    for (let q = c; running(); q += recallClients) {
      const query = queries[q % queries.length];
      const started = performance.now();
      const reply = await gateway.api('/v1/search', { body: { query: query.query, limit: 10, ...(query.exact ? { exact: true } : {}) } });
      if (reply.status !== 200) {
        fail('recall', reply);
        continue;
      }
      recall.ms.push(performance.now() - started);
      recall.byGateway[c % count] += 1;
    }
  };

  // Chat: one client per gateway, each with a conversation of its own whose turns go round the
  // gateways (client i's turn t through gateway (i + t) % count), the whole history sent each
  // time as chat apps do, memory on.
  const chat = { turns: 0, ms: [], conversations: new Map() };
  const chatClient = async (i) => {
    const conversation = `chat-${i}-${randomBytes(3).toString('hex')}`;
    const history = [];
    chat.conversations.set(conversation, 0);
    for (let t = 0; running(); t++) {
      const answer = `noted ${i} ${t}`;
      const user = { role: 'user', content: `client ${i} turn ${t}: the ${uniqueWord()} is on the shelf [[reply:${answer}]]` };
      const started = performance.now();
      const reply = await gateways[(i + t) % count].api('/v1/chat/completions', {
        body: { model: 'companion', messages: [...history, user] },
        headers: { 'x-cilia-conversation': conversation },
      });
      const text = reply.json?.choices?.[0]?.message?.content;
      if (reply.status !== 200 || text !== answer) {
        fail('chat', reply);
        break; // the history would no longer be what the archive holds
      }
      chat.ms.push(performance.now() - started);
      chat.turns += 1;
      chat.conversations.set(conversation, t + 1);
      history.push(user, { role: 'assistant', content: text });
      await sleep(chatPauseMs);
    }
  };

  const postgres = await postgresProcesses(database);
  const cpuBefore = { machine: machineCpu(), gateways: gateways.map((g) => cpuSeconds(g.server.pid)), postgres: postgres.cpu(), driver: process.cpuUsage() };
  const loadBefore = loadAverage();
  const probes = probeClock();
  await Promise.all([ingestClient(), ...Array.from({ length: recallClients }, (_, c) => recallClient(c)), ...gateways.map((_, i) => chatClient(i))]);
  // Rates and CPU over the load itself; the last probes may wait up to probeCapMs longer.
  const wall = (performance.now() - began) / 1000;
  const machine = machineCpu();
  const driver = process.cpuUsage(cpuBefore.driver);
  const cpu = {
    machine_busy_s: machine.busy - cpuBefore.machine.busy,
    machine_s: machine.total - cpuBefore.machine.total,
    gateways_s: gateways.reduce((sum, g, i) => sum + cpuSeconds(g.server.pid) - cpuBefore.gateways[i], 0),
    postgres_s: postgres.cpu(cpuBefore.postgres),
    driver_s: (driver.user + driver.system) / 1e6,
    load_average: [loadBefore, loadAverage()],
  };
  await probes;
  return {
    gateways: count,
    seconds: wall,
    recall: { ...stats(recall.ms), per_s: recall.ms.length / wall, by_gateway: recall.byGateway },
    ingest: { ...stats(ingest.ms), requests: ingest.requests, messages: ingest.messages, messages_per_s: ingest.messages / wall, resent: ingest.resent, resent_stored: ingest.resentStored },
    chat: { ...stats(chat.ms), turns: chat.turns, conversations: Object.fromEntries(chat.conversations) },
    freshness: {
      probes: freshness.probes,
      cap_ms: probeCapMs,
      searches: freshness.searches,
      same: { ...stats(freshness.same), misses: freshness.sameMisses },
      other: { ...stats(freshness.other), misses: freshness.otherMisses },
    },
    cpu,
    errors,
    acknowledged,
  };
}

// What the database holds after the load, against what was acknowledged: `lost` and `extra`
// messages of the ingested conversations, chat conversations whose stored message count is not
// two per answered turn, and scheduled job runs of one namespace and job that overlap or start
// less than JOB_PERIOD_MS apart. Waits up to `settleMs` for the chat turns' writes, which follow
// their answers.
export async function checkDatabase(database, result, { settleMs = 15_000 } = {}) {
  const query = async (sql) => (await psqlSuper(sql, { database })).trim().split('\n').filter(Boolean).map((line) => line.split('|'));
  const stored = new Map();
  for (const [conversation, id, copies] of await query(
    "SELECT c.external_id, m.caller_id, count(*) FROM messages m JOIN conversations c ON c.ns = m.ns AND c.id = m.conversation_id " +
      "WHERE c.external_id LIKE 'live-%' OR c.external_id LIKE 'probe-%' GROUP BY 1, 2",
  )) {
    stored.set(`${conversation}\u0000${id}`, Number(copies));
  }
  let lost = 0;
  let twice = 0;
  let acknowledgedCount = 0;
  for (const [conversation, ids] of result.acknowledged) {
    for (const id of ids) {
      acknowledgedCount += 1;
      const copies = stored.get(`${conversation}\u0000${id}`) ?? 0;
      if (copies === 0) lost += 1;
      if (copies > 1) twice += 1;
      stored.delete(`${conversation}\u0000${id}`);
    }
  }
  // Stored yet never acknowledged: a request cut off by the end of the load may leave these.
  const unacknowledged = stored.size;

  const expectedChat = new Map([...Object.entries(result.chat.conversations)].map(([c, turns]) => [c, 2 * turns]));
  let chatMismatch = [];
  for (const deadline = Date.now() + settleMs; ; await sleep(250)) {
    const counts = new Map((await query(
      "SELECT c.external_id, count(*) FROM messages m JOIN conversations c ON c.ns = m.ns AND c.id = m.conversation_id WHERE c.external_id LIKE 'chat-%' GROUP BY 1",
    )).map(([c, n]) => [c, Number(n)]));
    chatMismatch = [...expectedChat].filter(([c, n]) => (counts.get(c) ?? 0) !== n).map(([c, n]) => `${c}: ${counts.get(c) ?? 0} stored, ${n} expected`);
    if (!chatMismatch.length || Date.now() > deadline) break;
  }

  const runs = (await query('SELECT ns, job, started_by, started_at, coalesce(ended_at, -1), outcome FROM job_runs ORDER BY ns, job, started_at')).map(
    ([ns, job, by, start, end, outcome]) => ({ ns, job, by, start: Number(start), end: Number(end), outcome }),
  );
  const jobs = {};
  const doubled = [];
  let previous = null;
  for (const run of runs) {
    const key = `${run.ns}/${run.job}`;
    jobs[key] ??= { runs: 0, outcomes: {} };
    jobs[key].runs += 1;
    jobs[key].outcomes[run.outcome] = (jobs[key].outcomes[run.outcome] ?? 0) + 1;
    if (previous && `${previous.ns}/${previous.job}` === key) {
      const overlaps = previous.end < 0 || run.start < previous.end;
      const tooSoon = previous.by === 'schedule' && run.by === 'schedule' && run.start - previous.start < JOB_PERIOD_MS;
      if (overlaps || tooSoon) doubled.push(`${key}: runs at ${previous.start} and ${run.start}`);
    }
    previous = run;
  }
  const claims = await query('SELECT ns, job, coalesce(holder, \'\') FROM job_claims');
  return {
    acknowledged: acknowledgedCount,
    lost,
    twice,
    unacknowledged,
    resent_stored: result.ingest.resent_stored,
    chat_mismatch: chatMismatch,
    jobs,
    job_runs: runs.length,
    jobs_twice: doubled,
    claims_held: claims.filter(([, , holder]) => holder).length,
  };
}

// What a run must not show (`run`: runMixedLoad's result with checkDatabase's as `checks`):
// bench/gateways.mjs exits 1 on any, tests/e2e/gateways.test.mjs asserts there are none.
export function problemsOf(run) {
  const c = run.checks;
  const problems = [];
  if (run.errors.length) problems.push(`${run.errors.length} errors`);
  if (c.lost) problems.push(`${c.lost} acknowledged messages lost`);
  if (c.twice) problems.push(`${c.twice} messages stored twice`);
  if (c.resent_stored) problems.push(`${c.resent_stored} resent messages stored again`);
  if (c.chat_mismatch.length) problems.push(`chat: ${c.chat_mismatch.join('; ')}`);
  if (c.jobs_twice.length) problems.push(`jobs run twice: ${c.jobs_twice.join('; ')}`);
  // The change log brings one gateway's writes to the others' indexes within a second.
  const { same, other, cap_ms: cap } = run.freshness;
  if (same.misses || other.misses) problems.push(`freshness: ${same.misses} probes not found within ${cap} ms through gateway 0, ${other.misses} through the others`);
  return problems;
}

// The command line: version, ingest, recall, search, export/import, config errors, and the
// commands beside a running server (through its HTTP API).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import test from 'node:test';

import { gatewayConfig, MODELS, startFakeUpstream } from './lib/gateway.mjs';
import { dataDirForTest, fileForTest, metricValue, repoRoot, runCli, serverForTest } from './lib/server.mjs';

const CONVERSATIONS = [
  {
    conversation_id: 'cli-a',
    title: 'Weekend',
    messages: [
      { id: 'a1', role: 'user', name: 'Mina', content: 'We hiked up to the old fire lookout on Saturday.', created_at: '2023-03-04T09:00:00Z' },
      { id: 'a2', role: 'assistant', name: 'AI', content: 'That sounds lovely! How was the view? 🌄', created_at: '2023-03-04T09:00:05Z' },
      { id: 'a3', role: 'user', name: 'Mina', content: '山顶的风很大，但是能看到整个湖。', created_at: '2023-03-04T09:01:00Z' },
    ],
  },
  {
    conversation_id: 'cli-b',
    messages: [
      { id: 'b1', role: 'user', content: 'The fire lookout tower was built in 1932.', created_at: '2023-03-20T18:00:00Z' },
      { id: 'b2', role: 'user', content: [{ type: 'text', text: 'Parts arrays work as content too.' }], created_at: '2023-03-20T18:01:00Z' },
    ],
  },
];

const jsonl = (objects) => objects.map((o) => JSON.stringify(o)).join('\n') + '\n';

async function ingestFixture(t, dataDir) {
  const file = await fileForTest(t, 'fixture.jsonl', jsonl(CONVERSATIONS));
  const run = await runCli(['ingest', file], { dataDir });
  assert.equal(run.code, 0, run.stderr);
  return run;
}

async function recallJson(dataDir, query, flags = []) {
  const run = await runCli(['recall', query, '--json', ...flags], { dataDir });
  assert.equal(run.code, 0, run.stderr);
  const reply = JSON.parse(run.stdout);
  assert.ok(Array.isArray(reply.results), run.stdout);
  return reply.results;
}

test('cilia version prints a version', async () => {
  const run = await runCli(['version']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /\d+\.\d+\.\d+/);
});

test('cilia ingest prints a summary and returns once the messages are searchable', async (t) => {
  const dataDir = await dataDirForTest(t);
  const run = await ingestFixture(t, dataDir);
  assert.match(run.stdout + run.stderr, /5/, `the summary counts the 5 messages: ${run.stdout}`);

  const results = await recallJson(dataDir, 'fire lookout');
  assert.ok(results.length > 0);
  const hit = results.find((r) => r.message_ids.includes('a1'));
  assert.ok(hit, JSON.stringify(results));
  assert.equal(hit.layer, 'archive');
  assert.equal(hit.conversation_id, 'cli-a');
  assert.match(hit.text, /^\[2023-03-04 · Weekend\]\n/);
  assert.match(hit.text, /Mina: /);

  const chinese = await recallJson(dataDir, '湖');
  assert.ok(chinese.some((r) => r.message_ids.includes('a3')), JSON.stringify(chinese));
  const fromParts = await recallJson(dataDir, 'parts arrays');
  assert.ok(fromParts.some((r) => r.message_ids.includes('b2')), JSON.stringify(fromParts));

  const plain = await runCli(['recall', 'fire lookout'], { dataDir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /fire lookout/);
});

test('cilia recall takes --limit, --conversation, --after, --before and --exact', async (t) => {
  const dataDir = await dataDirForTest(t);
  await ingestFixture(t, dataDir);

  const both = await recallJson(dataDir, 'fire lookout');
  assert.deepEqual([...new Set(both.map((r) => r.conversation_id))].sort(), ['cli-a', 'cli-b']);
  assert.equal((await recallJson(dataDir, 'fire lookout', ['--limit', '1'])).length, 1);

  const onlyB = await recallJson(dataDir, 'fire lookout', ['--conversation', 'cli-b']);
  assert.ok(onlyB.length > 0 && onlyB.every((r) => r.conversation_id === 'cli-b'), JSON.stringify(onlyB));

  const afterTenth = await recallJson(dataDir, 'fire lookout', ['--after', '2023-03-10']);
  assert.ok(afterTenth.length > 0 && afterTenth.every((r) => r.conversation_id === 'cli-b'), JSON.stringify(afterTenth));
  const beforeTenth = await recallJson(dataDir, 'fire lookout', ['--before', '2023-03-10']);
  assert.ok(beforeTenth.length > 0 && beforeTenth.every((r) => r.conversation_id === 'cli-a'), JSON.stringify(beforeTenth));

  const exact = await recallJson(dataDir, '整个湖', ['--exact']);
  assert.ok(exact.length > 0 && exact.every((r) => r.text.includes('整个湖')), JSON.stringify(exact));
});

test('export, import into a new data dir and export again gives the same bytes', async (t) => {
  const dataDir = await dataDirForTest(t);
  await ingestFixture(t, dataDir);
  const first = await runCli(['export'], { dataDir });
  assert.equal(first.code, 0, first.stderr);
  assert.ok(first.stdoutBytes.length > 0);
  const records = first.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const dumped = JSON.stringify(records);
  assert.ok(dumped.includes('山顶的风很大') && dumped.includes('🌄'), 'the dump carries the text verbatim');

  const dump = await fileForTest(t, 'dump.jsonl', first.stdoutBytes);
  const copyDir = await dataDirForTest(t);
  const imported = await runCli(['import', dump], { dataDir: copyDir });
  assert.equal(imported.code, 0, imported.stderr);

  const second = await runCli(['export'], { dataDir: copyDir });
  assert.equal(second.code, 0, second.stderr);
  assert.ok(first.stdoutBytes.equals(second.stdoutBytes), 'the second export differs from the first');
  assert.ok((await recallJson(copyDir, 'fire lookout')).length > 0, 'the import is searchable');
});

test('an unknown key in the config file is exit code 2 and names the key', async (t) => {
  const dataDir = await dataDirForTest(t);
  const config = await fileForTest(t, 'bad.toml', '[server]\nlisten = "127.0.0.1:8420"\nlisten_prot = "oops"\n');
  const run = await runCli(['recall', 'anything', '--config', config], { dataDir, timeoutMs: 20_000 });
  assert.equal(run.code, 2, `exit ${run.code}: ${run.stderr}`);
  assert.match(run.stderr + run.stdout, /listen_prot/);
});

test('cilia ingest of a malformed file fails, names the line, and stores nothing', async (t) => {
  const dataDir = await dataDirForTest(t);
  const bad = jsonl([CONVERSATIONS[0]]) + '{"conversation_id": "cli-b", "messages": [\n' + jsonl([CONVERSATIONS[1]]);
  const file = await fileForTest(t, 'broken.jsonl', bad);
  const run = await runCli(['ingest', file], { dataDir });
  assert.notEqual(run.code, 0, run.stdout);
  assert.match(run.stderr + run.stdout, /line 2\b|:2:/);

  assert.deepEqual(await recallJson(dataDir, 'fire lookout'), []);
  const dump = await runCli(['export'], { dataDir });
  assert.equal(dump.code, 0, dump.stderr);
  assert.ok(!dump.stdout.includes('fire lookout'), 'a message of line 1 was stored');
});

// A server whose first start wrote data/admin.key, as `make run` does; the CLI finds it by
// DATA/serve.json and reaches it with that key.
async function serverWithAdminKey(t, config) {
  const server = await serverForTest(t, { env: { CILIA_API_KEY: '' }, config });
  const adminKey = (await readFile(join(server.dataDir, 'admin.key'), 'utf8')).trim();
  return { server, adminKey, api: (path, options = {}) => server.api(path, { key: adminKey, ...options }) };
}

const THROUGH = /through it at http:\/\/127\.0\.0\.1:\d+/;

test('serve says where it listens in DATA/serve.json and removes it when it stops', async (t) => {
  const { server } = await serverWithAdminKey(t);
  const serve = JSON.parse(await readFile(join(server.dataDir, 'serve.json'), 'utf8'));
  assert.deepEqual(serve, { pid: server.pid, url: server.url });
  assert.equal(await server.stop({ keepData: true }), 0);
  await assert.rejects(readFile(join(server.dataDir, 'serve.json')), { code: 'ENOENT' });
});

test('beside a running server ingest, import, keys, jobs, search and export go through it', async (t) => {
  const { server, api } = await serverWithAdminKey(t);
  const dataDir = server.dataDir;

  const file = await fileForTest(t, 'fixture.jsonl', jsonl(CONVERSATIONS));
  const ingested = await runCli(['ingest', file], { dataDir });
  assert.equal(ingested.code, 0, ingested.stderr);
  assert.match(ingested.stderr, THROUGH);
  assert.match(ingested.stdout, /2 conversations, 5 messages stored, 0 duplicates/);
  const found = await api('/v1/search', { body: { query: 'fire lookout' } });
  assert.equal(found.status, 200, found.text);
  assert.ok(found.json.results.some((r) => r.message_ids.includes('a1')), found.text);

  const chatgpt = join(repoRoot, 'tests/fixtures/import/chatgpt_conversations.json');
  const imported = await runCli(['import', chatgpt, '--json'], { dataDir });
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stderr, THROUGH);
  const summary = JSON.parse(imported.stdout);
  assert.equal(summary.format, 'chatgpt');
  assert.ok(summary.stored > 0, imported.stdout);
  const hangzhou = await api('/v1/search', { body: { query: '杭州' } });
  assert.ok(hangzhou.json.results.length > 0, hangzhou.text);

  const created = await runCli(['keys', 'create', '--scopes', 'chat', '--name', 'phone'], { dataDir });
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, THROUGH);
  const newKey = created.stdout.trim();
  const whoami = await server.api('/v1/whoami', { key: newKey });
  assert.equal(whoami.status, 200, whoami.text);
  assert.deepEqual(whoami.json.scopes, ['chat']);
  const revoked = await runCli(['keys', 'revoke', whoami.json.key_id], { dataDir });
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal((await server.api('/v1/whoami', { key: newKey })).status, 401);

  const job = await runCli(['jobs', 'run', 'reindex'], { dataDir });
  assert.equal(job.code, 0, job.stderr);
  assert.match(job.stderr, THROUGH);
  assert.match(job.stdout, /^reindex: ok/);
  const runs = await api('/v1/jobs?job=reindex');
  assert.equal(runs.json.runs[0].started_by, 'manual');

  const search = await runCli(['search', 'fire', 'lookout'], { dataDir });
  assert.equal(search.code, 0, search.stderr);
  assert.match(search.stderr, THROUGH);
  assert.match(search.stdout, /^2023-03-04 · Weekend · \d\.\d{3}\nMina: We hiked/m);
  assert.ok(!/\b(a1|w_\d+)\b/.test(search.stdout), `ids only in --json: ${search.stdout}`);
  const searchJson = await runCli(['search', 'fire lookout', '--json'], { dataDir });
  assert.ok(JSON.parse(searchJson.stdout).results.some((r) => r.message_ids.includes('a1')), searchJson.stdout);

  const exported = await runCli(['export'], { dataDir });
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stderr, THROUGH);
  const direct = await api('/v1/export');
  assert.equal(exported.stdout, direct.text, 'the same bytes as GET /v1/export');
});

test('beside a running server a namespace its admin key cannot reach is refused, saying why', async (t) => {
  const { server } = await serverWithAdminKey(t);
  const file = await fileForTest(t, 'more.jsonl', jsonl([CONVERSATIONS[1]]));
  const write = await runCli(['ingest', file, '--namespace', 'work'], { dataDir: server.dataDir });
  assert.equal(write.code, 1, write.stdout);
  assert.match(write.stderr, /admin key is for namespace "default"/);
});

test('a file over the server\'s body limit is refused saying which limit and what to do', async (t) => {
  const { server } = await serverWithAdminKey(t, '[server]\nmax_body_mb = 1\n');
  const big = CONVERSATIONS[0].messages[0].content.repeat(40);
  const conversations = Array.from({ length: 700 }, (_, i) => ({
    conversation_id: `big-${i}`,
    messages: [{ id: `m${i}`, role: 'user', content: big }],
  }));
  const file = await fileForTest(t, 'big.jsonl', jsonl(conversations));
  const run = await runCli(['ingest', file], { dataDir: server.dataDir });
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stderr, /the server answered 413: .*server\.max_body_mb.*stop the server and run this again/);
});

test('without a server the commands work on the data dir directly and say nothing of a server', async (t) => {
  const dataDir = await dataDirForTest(t);
  const run = await ingestFixture(t, dataDir);
  assert.ok(!/through/.test(run.stderr), run.stderr);
  const search = await runCli(['search', 'fire lookout'], { dataDir });
  assert.equal(search.code, 0, search.stderr);
  assert.match(search.stdout, /^2023-03-04 · Weekend · /m);
  const job = await runCli(['jobs', 'run', 'reindex', '--json'], { dataDir });
  assert.equal(job.code, 0, job.stderr);
  assert.equal(JSON.parse(job.stdout).outcome, 'ok');
  assert.ok(!search.stderr.includes('\r') && !job.stderr.includes('\r'), 'no progress line when stderr is not a terminal');
});

test('an argument error prints the command\'s usage', async () => {
  const run = await runCli(['search']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /usage: cilia search QUERY/);
  assert.match(run.stderr, /--limit N/);
  const limit = await runCli(['recall', 'x', '--limit', 'many']);
  assert.equal(limit.code, 2);
  assert.match(limit.stderr, /--limit: must be a number\n\nusage: cilia recall QUERY/);
});

// A POST by hand, with exactly the head given: no body, and no Content-Length unless asked.
function rawPost(url, path, key, extraHead = '') {
  const { hostname, port } = new URL(url);
  return new Promise((resolveReply, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n${extraHead}Connection: close\r\n\r\n`);
    });
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk));
    socket.on('end', () => resolveReply({ status: Number(reply.split(' ')[1]), text: reply }));
    socket.on('error', reject);
  });
}

test('a POST that needs no body works without one, with or without Content-Length: 0', async (t) => {
  const { server, adminKey } = await serverWithAdminKey(t);
  for (const head of ['', 'Content-Length: 0\r\n']) {
    const run = await rawPost(server.url, '/v1/jobs/reindex/run', adminKey, head);
    assert.equal(run.status, 200, run.text);
    assert.match(run.text, /"outcome":\s*"ok"/);
    for (const decision of ['approve', 'discard']) {
      const reply = await rawPost(server.url, `/v1/candidates/c_999/${decision}`, adminKey, head);
      assert.equal(reply.status, 404, reply.text);
      assert.match(reply.text, /no candidate/);
    }
  }
});

test('cilia doctor beside a running server: a failed extraction, a pending candidate, the hash embedder, a differing zone', async (t) => {
  const upstream = await startFakeUpstream();
  t.after(() => upstream.stop());
  const config = gatewayConfig({ upstreamUrl: upstream.url });
  const server = await serverForTest(t, {
    config,
    // One new message is enough for extraction to take a conversation.
    env: { CILIA_JOBS_ENABLED: 'false', CILIA_EXTRACTION_MIN_MESSAGES: '1', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' },
  });
  const today = new Date().toISOString().slice(0, 10);
  const ingest = async (conversation, content) => {
    const reply = await server.api('/v1/ingest/messages?sync=true', {
      body: { conversation_id: conversation, messages: [{ id: 'u1', role: 'user', content, created_at: new Date().toISOString() }] },
    });
    assert.equal(reply.status, 200, reply.text);
  };
  // A low-confidence item waits for review as a candidate.
  await ingest('doctor-a', 'I think I might take up the cello next spring.');
  const unsure = { date: today, content: 'She may take up the cello.', quote: 'I might take up the cello', type: 'plan', fact_key: null, confidence: 0.5 };
  await upstream.script([{ match: 'You excerpt memories', reply: JSON.stringify({ items: [unsure] }), times: 1 }]);
  const first = await server.api('/v1/jobs/extract/run', { method: 'POST' });
  assert.equal(first.json?.outcome, 'ok', first.text);
  assert.equal(first.json.detail.items_candidates, 1, first.text);
  // The next batch's text asks the fake upstream for an error: the run fails.
  await ingest('doctor-b', 'Please remember this one. [[error:500]]');
  const second = await server.api('/v1/jobs/extract/run', { method: 'POST' });
  assert.equal(second.json?.outcome, 'failed', second.text);

  const configFile = await fileForTest(t, 'cilia.toml', config);
  const run = await runCli(['doctor', '--json', '--config', configFile], { dataDir: server.dataDir, env: { TZ: 'UTC', CILIA_SERVER_TIME_ZONE: 'Asia/Tokyo' } });
  assert.equal(run.code, 0, `warnings only, no problem: ${run.stdout}${run.stderr}`);
  const report = JSON.parse(run.stdout);
  assert.equal(report.verdict, 'warning', run.stdout);
  const check = (name) => report.checks.find((c) => c.name === name) ?? assert.fail(`no check ${name}: ${run.stdout}`);
  assert.equal(check('jobs').verdict, 'warning');
  assert.match(check('jobs').detail, /default: extract failed \(.*500/);
  assert.equal(check('candidates').verdict, 'warning');
  assert.match(check('candidates').detail, /1 in default/);
  assert.equal(check('embedder').verdict, 'warning');
  assert.match(check('embedder').mend, /embedding = \{ kind = "openai", provider = "oai", model = "[^"]+" \}/);
  assert.equal(check('time zone').verdict, 'warning');
  assert.match(check('time zone').detail, /Asia\/Tokyo .*this machine's is UTC/);

  const text = await runCli(['doctor', '--config', configFile], { dataDir: server.dataDir, env: { TZ: 'UTC' } });
  assert.equal(text.code, 0, text.stdout);
  assert.match(text.stdout, /^WARN {2}jobs /m);
  assert.match(text.stdout, /^ {6}\s+-> GET \/v1\/jobs/m);

  // The same runs in /metrics: two extract runs, one failed; the failed model call.
  const metrics = (await server.api('/metrics')).text;
  assert.equal(metricValue(metrics, 'cilia_job_runs_total{job="extract",outcome="ok"}'), 1, metrics);
  assert.equal(metricValue(metrics, 'cilia_job_runs_total{job="extract",outcome="failed"}'), 1, metrics);
  assert.ok(metricValue(metrics, `cilia_extraction_calls_total{model="${MODELS.extract}",outcome="failed"}`) >= 1, metrics);
  assert.ok(metricValue(metrics, `cilia_extraction_tokens_total{model="${MODELS.extract}",kind="input"}`) > 0, metrics);
});

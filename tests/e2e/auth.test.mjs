// Keys, scopes and namespaces at the HTTP boundary.
import assert from 'node:assert/strict';
import test from 'node:test';

import { assertOpenAIError } from './lib/replies.mjs';
import { dataDirForTest, request, runCli, serverForTest } from './lib/server.mjs';

const FACT = {
  conversation_id: 'default-only',
  messages: [{ id: 'f1', role: 'user', content: 'The spare key is under the blue flowerpot.', created_at: '2023-04-02T10:00:00Z' }],
};

// `cilia keys create` prints the new key; the contract does not fix the format, so take a
// "key"/"secret"/"token" field of a JSON reply, else the longest key-looking token printed.
function keyFromOutput(stdout) {
  try {
    const reply = JSON.parse(stdout);
    const key = reply.key ?? reply.secret ?? reply.token ?? reply.api_key;
    if (typeof key === 'string') return key;
  } catch {
    // plain text
  }
  const tokens = stdout.match(/[A-Za-z0-9_\-.]{20,}/g) ?? [];
  assert.ok(tokens.length > 0, `no key in the output of keys create: ${stdout}`);
  return tokens.sort((a, b) => b.length - a.length)[0];
}

test('a request without a key, or with a wrong one, is a 401 shaped like an OpenAI error', async (t) => {
  const server = await serverForTest(t);
  const body = { query: 'anything' };
  assertOpenAIError(await request(server.url, '/v1/search', { body }), 401);
  assertOpenAIError(await request(server.url, '/v1/search', { body, key: `${server.key}x` }), 401);
  assertOpenAIError(await request(server.url, '/v1/search', { body, headers: { 'x-api-key': 'nope' } }), 401);
  assertOpenAIError(await request(server.url, '/v1/conversations', {}), 401);
});

test('the x-api-key header is accepted like a bearer token', async (t) => {
  const server = await serverForTest(t);
  const reply = await request(server.url, '/v1/search', { body: { query: 'anything' }, headers: { 'x-api-key': server.key } });
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.json.results, []);
});

test('GET /health needs no key', async (t) => {
  const server = await serverForTest(t);
  const reply = await request(server.url, '/health');
  assert.equal(reply.status, 200, reply.text);
});

test('GET /metrics with the full key is Prometheus text', async (t) => {
  const server = await serverForTest(t);
  assert.equal((await request(server.url, '/metrics')).status, 401);
  const reply = await server.api('/metrics');
  assert.equal(reply.status, 200, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
  assert.match(reply.text, /^# (HELP|TYPE) \w+/m);
  assert.match(reply.text, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eE]+(Inf|NaN)?$/m);
});

test('a read-only key of another namespace can search there, cannot write, and sees nothing of default', async (t) => {
  const dataDir = await dataDirForTest(t);
  // Key creation writes to the data dir: run it while no server holds the dir.
  const created = await runCli(['keys', 'create', '--namespace', 'other', '--scopes', 'memory:read', '--json'], { dataDir });
  assert.equal(created.code, 0, created.stderr);
  const readKey = keyFromOutput(created.stdout);
  const listed = await runCli(['keys', 'list'], { dataDir });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /other/, 'keys list shows the namespace');
  assert.ok(!listed.stdout.includes(readKey), 'keys list never prints a secret');

  const server = await serverForTest(t, { dataDir });
  const ingested = await server.api('/v1/ingest/messages?sync=true', { body: FACT });
  assert.equal(ingested.status, 200, ingested.text);
  const asOwner = await server.api('/v1/search', { body: { query: 'spare key flowerpot' } });
  assert.ok(asOwner.json.results.length > 0, asOwner.text);

  const asReader = await server.api('/v1/search', { body: { query: 'spare key flowerpot' }, key: readKey });
  assert.equal(asReader.status, 200, asReader.text);
  assert.deepEqual(asReader.json.results, []);
  const readerExact = await server.api('/v1/search', { body: { query: 'flowerpot', exact: true }, key: readKey });
  assert.deepEqual(readerExact.json.results, []);

  const write = await server.api('/v1/ingest/messages?sync=true', { body: FACT, key: readKey });
  assertOpenAIError(write, 403);
  const forget = await server.api('/v1/conversations/default-only', { method: 'DELETE', key: readKey });
  assert.ok([403, 404].includes(forget.status), forget.text);
  assertOpenAIError(await server.api('/metrics', { key: readKey }), 403);
  assert.ok((await server.api('/v1/search', { body: { query: 'spare key flowerpot' } })).json.results.length > 0, 'still there');
});

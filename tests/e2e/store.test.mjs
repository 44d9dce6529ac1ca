// The store setting end to end: a store that cannot be reached at start stops `cilia serve` with
// a message naming it (its password hidden); on PostgreSQL (make e2e-pg) two gateways share one
// database, and a database lost under a running server makes requests 503s in the client's
// error shape until it is back, except chat turns, which answer without memory and say so.
import assert from 'node:assert/strict';
import test from 'node:test';

import { inConversation, openaiClient } from './lib/clients.mjs';
import { startGateway, systemTextOf, toolNamesOf, turnContextOf, uniqueId, upstreamRequestsWith } from './lib/gateway.mjs';
import { assertOpenAIError, listItems } from './lib/replies.mjs';
import { binaryExists, ciliaBin, dataDirForTest, onPostgres, psqlSuper, runCli, serverForTest, storeDatabaseOf, storeEnv } from './lib/server.mjs';

const skip = binaryExists() ? false : `no cilia binary at ${ciliaBin}`;
const pgOnly = skip || (onPostgres ? false : 'about the PostgreSQL store: runs under make e2e-pg');

const ingestBody = (conversation, id, content) => ({
  conversation_id: conversation,
  messages: [{ id, role: 'user', content, created_at: '2024-03-01T10:00:00Z' }],
});

test('a store that cannot be reached stops cilia serve with a message naming it, without the password', { skip }, async (t) => {
  const dataDir = await dataDirForTest(t);
  const run = await runCli(['serve', '--listen', '127.0.0.1:0'], {
    dataDir,
    env: { CILIA_STORE_KIND: 'postgres', CILIA_STORE_URL: 'postgresql://cilia:s3cret@/nowhere?host=/nonexistent-dir' },
    timeoutMs: 30_000,
  });
  assert.equal(run.code, 1, run.stderr);
  // RedactedStoreUrl hides the password; the log's own redaction may hide the user too.
  assert.match(run.stderr, /store postgresql:\/\/(cilia:\*\*\*|\[redacted\])@\/nowhere.*unreachable/);
  assert.doesNotMatch(run.stderr + run.stdout, /s3cret/);
});

test('two gateways on one database see each other\'s namespaces and messages', { skip: pgOnly }, async (t) => {
  const one = await serverForTest(t);
  const shared = await storeEnv(one.dataDir);
  const stored = await one.api('/v1/ingest/messages?sync=true', { body: ingestBody('shared', 's1', 'The lighthouse keeper painted the door blue.') });
  assert.equal(stored.status, 200, stored.text);

  const two = await serverForTest(t, { env: shared });
  const conversations = listItems((await two.api('/v1/conversations')).json);
  assert.deepEqual(conversations.map((c) => c.id), ['shared']);
  // The second gateway opens the namespace after the write, so its indexes hold it.
  const found = await two.api('/v1/search', { body: { query: 'lighthouse keeper' } });
  assert.equal(found.status, 200, found.text);
  assert.ok(found.json.results.some((r) => r.message_ids.includes('s1')), found.text);
});

test('a message ingested through one gateway is recalled through another that holds the namespace open, within a second', { skip: pgOnly }, async (t) => {
  const one = await serverForTest(t);
  const two = await serverForTest(t, { env: await storeEnv(one.dataDir) });
  // Both open the namespace (and load its indexes) before the write.
  for (const server of [one, two]) assert.equal((await server.api('/v1/search', { body: { query: 'anything' } })).status, 200);

  const start = performance.now();
  const stored = await one.api('/v1/ingest/messages?sync=true', { body: ingestBody('fresh', 'f1', 'The glassblower shaped a green bottle.') });
  assert.equal(stored.status, 200, stored.text);
  let found;
  do {
    found = await two.api('/v1/search', { body: { query: 'glassblower bottle' } });
    assert.equal(found.status, 200, found.text);
  } while (!found.json.results.some((r) => r.message_ids.includes('f1')) && performance.now() - start < 5000);
  const took = performance.now() - start;
  t.diagnostic(`recalled through the other gateway ${took.toFixed(0)} ms after the ingest was sent`);
  assert.ok(found.json.results.some((r) => r.message_ids.includes('f1')), found.text);
  assert.ok(took < 1000, `took ${took} ms`);

  // A forget through the second reaches the first.
  assert.equal((await two.api('/v1/conversations/fresh', { method: 'DELETE' })).status, 200);
  const forgetStart = performance.now();
  let gone;
  do {
    gone = await one.api('/v1/search', { body: { query: 'glassblower bottle' } });
  } while (gone.json.results.length > 0 && performance.now() - forgetStart < 5000);
  assert.deepEqual(gone.json.results, [], gone.text);
});

test('a database lost under a running server is a 503 in the client\'s shape, and the server recovers', { skip: pgOnly }, async (t) => {
  const server = await serverForTest(t);
  assert.equal((await server.api('/v1/ingest/messages?sync=true', { body: ingestBody('c', 'm1', 'First words.') })).status, 200);
  const database = storeDatabaseOf(server.dataDir);
  // No after hook reopens it: the server's own clean-up drops the database, closed or not.
  const reopen = () => psqlSuper(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
  await psqlSuper(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
  await psqlSuper(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`);

  const refused = await server.api('/v1/ingest/messages?sync=true', { body: ingestBody('c', 'm2', 'Lost words.') });
  const error = assertOpenAIError(refused, 503);
  assert.match(error.message, /unreachable/);
  assertOpenAIError(await server.api('/v1/conversations'), 503);

  await reopen();
  const again = await server.api('/v1/ingest/messages?sync=true', { body: ingestBody('c', 'm2', 'Found words.') });
  assert.equal(again.status, 200, again.text);
  const rows = await psqlSuper("SELECT count(*) FROM messages WHERE caller_id = 'm2'", { database });
  assert.equal(rows.trim(), '1', 'the refused ingest stored nothing half-way');
});

test('with the database lost under a running server a chat turn answers without memory and says so, and an ingest is a 503', { skip: pgOnly }, async (t) => {
  const gw = await startGateway();
  t.after(() => gw.stop());
  const client = openaiClient(gw);
  const conversation = uniqueId('down');
  const ask = (text, extra = {}) =>
    client.chat.completions
      .create({ model: 'companion', messages: [{ role: 'user', content: text }], ...extra }, inConversation(conversation))
      .withResponse();
  const first = uniqueId('before');
  const before = await ask(`My boat is called Heron. ${first}`);
  assert.equal(before.response.headers.get('x-cilia-memory'), null);
  const [remembered] = await upstreamRequestsWith(gw.upstream, first);
  assert.ok(toolNamesOf(remembered.body).includes('recall'), 'memory is on while the database is there');

  const database = storeDatabaseOf(gw.server.dataDir);
  // No after hook reopens it: the server's own clean-up drops the database, closed or not.
  const reopen = () => psqlSuper(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
  await psqlSuper(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
  await psqlSuper(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`);

  const lost = uniqueId('lost');
  const { data, response } = await ask(`What is my boat called? ${lost}`);
  assert.equal(response.status, 200);
  assert.equal(data.choices[0].message.content, `echo: What is my boat called? ${lost}`);
  assert.equal(response.headers.get('x-cilia-memory'), 'unavailable');
  const [seen] = await upstreamRequestsWith(gw.upstream, lost);
  assert.deepEqual(toolNamesOf(seen.body), [], 'no recall tool');
  assert.equal(systemTextOf(seen.body), '', 'no memory block');
  assert.equal(turnContextOf(seen.body), null, 'no turn context');
  assert.deepEqual(seen.body.messages, [{ role: 'user', content: `What is my boat called? ${lost}` }]);

  const streamed = await ask(`And streamed? ${uniqueId('stream')}`, { stream: true });
  assert.equal(streamed.response.headers.get('x-cilia-memory'), 'unavailable');
  let text = '';
  for await (const chunk of streamed.data) text += chunk.choices[0]?.delta?.content ?? '';
  assert.match(text, /^echo: And streamed\?/);

  const refused = await gw.api('/v1/ingest/messages?sync=true', { body: ingestBody('c', 'm-down', 'Lost words.') });
  assert.match(assertOpenAIError(refused, 503).message, /unreachable/);

  await reopen();
  const back = uniqueId('back');
  const again = await ask(`Still there? ${back}`);
  assert.equal(again.response.headers.get('x-cilia-memory'), null);
  const [recovered] = await upstreamRequestsWith(gw.upstream, back);
  assert.ok(toolNamesOf(recovered.body).includes('recall'), 'memory is back with the database');
  const stored = await psqlSuper(
    `SELECT string_agg(text, ' | ' ORDER BY seq) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.external_id = '${conversation}'`,
    { database },
  );
  assert.doesNotMatch(stored, new RegExp(lost), 'the turn without memory stored nothing');
  assert.match(stored, new RegExp(back));
});

// /mcp driven by the official MCP SDK 1.x (Streamable HTTP, initialize and sessions), and by raw
// JSON-RPC for what the SDK never sends: every tool, bad input, keys, scopes and namespaces.
import assert from 'node:assert/strict';
import test from 'node:test';

import { connectV1, postRpc, textOf } from './lib/mcp.mjs';
import { dataDirForTest, request, runCli, serverForTest } from './lib/server.mjs';

const TOOLS = [
  'memory_search', 'memory_recall', 'memory_get', 'memory_list', 'memory_upsert', 'memory_supersede',
  'memory_archive', 'memory_delete', 'memory_pin', 'memory_ingest', 'memory_boot', 'memory_export',
  'glossary_set', 'profile_get', 'profile_set', 'digest_get', 'candidates_list', 'candidate_review',
];
const READ_TOOLS = ['memory_search', 'memory_recall', 'memory_get', 'memory_list', 'memory_boot', 'profile_get',
  'digest_get', 'candidates_list'];

const TRIP = {
  conversation_id: 'trip-2023-05',
  messages: [
    { id: 'D1:3', role: 'user', name: 'Caroline', content: 'I went to a LGBTQ support group yesterday.', created_at: '2023-05-08T13:56:00Z' },
    { id: 'D1:4', role: 'assistant', name: 'Mel', content: 'That sounds brave. How did it feel?', created_at: '2023-05-08T13:57:00Z' },
  ],
};

async function createKey(server, scopes) {
  const reply = await server.api('/v1/keys', { body: { scopes, name: scopes.join('+') } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.key;
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args });
}

function ok(result, name) {
  assert.equal(result.isError, false, `${name}: ${textOf(result)}`);
  return result;
}

test('the SDK initializes, lists every tool, and calls each; REST shows what the calls changed', async (t) => {
  const server = await serverForTest(t);
  const { client, transport } = await connectV1(server);
  t.after(() => client.close());
  assert.equal(transport.protocolVersion, '2025-11-25');
  assert.match(transport.sessionId, /^[0-9a-f]{64}$/);
  assert.match(client.getInstructions(), /memory_search/);

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
  for (const tool of tools) {
    assert.ok(tool.description.length > 60, `${tool.name} has a description a model can use`);
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.equal(tool.outputSchema?.type, 'object', tool.name);
    assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', tool.name);
  }
  assert.equal(tools.find((tool) => tool.name === 'memory_delete').annotations.destructiveHint, true);
  assert.equal(tools.find((tool) => tool.name === 'memory_search').annotations.readOnlyHint, true);

  const ingested = ok(await call(client, 'memory_ingest', TRIP), 'memory_ingest');
  assert.deepEqual(ingested.structuredContent, { conversation_id: TRIP.conversation_id, stored: 2, duplicates: 0 });

  const searched = ok(await call(client, 'memory_search', { query: 'support group', limit: 5 }), 'memory_search');
  assert.match(textOf(searched), /Caroline: I went to a LGBTQ support group yesterday\./);
  assert.match(textOf(searched), /\[2023-05-08/);
  assert.equal(searched.structuredContent.results[0].conversation_id, TRIP.conversation_id);
  const recalled = ok(await call(client, 'memory_recall', { query: 'how did the support group feel' }), 'memory_recall');
  assert.ok(recalled.structuredContent.results.length > 0);

  const quoted = ok(await call(client, 'memory_upsert', {
    content: 'Caroline goes to an LGBTQ support group.', quote: 'LGBTQ support group', conversation_id: TRIP.conversation_id,
    message_id: 'D1:3', type: 'event', fact_key: 'support_group',
  }), 'memory_upsert');
  const first = quoted.structuredContent.memory.id;
  const ownWords = ok(await call(client, 'memory_upsert', { content: 'Caroline prefers tea to coffee.', type: 'preference' }),
    'memory_upsert (own words)');
  const second = ownWords.structuredContent.memory.id;
  assert.equal(ownWords.structuredContent.memory.conversation_id, 'notes');

  const got = ok(await call(client, 'memory_get', { id: first }), 'memory_get');
  assert.equal(got.structuredContent.memory.quote, 'LGBTQ support group');
  const listed = ok(await call(client, 'memory_list', {}), 'memory_list');
  assert.equal(listed.structuredContent.memories.length, 2);
  ok(await call(client, 'memory_supersede', { id: first, by: second }), 'memory_supersede');
  ok(await call(client, 'memory_archive', { id: second }), 'memory_archive');
  const pinned = ok(await call(client, 'memory_pin', { conversation_id: TRIP.conversation_id, message_ids: ['D1:3'] }), 'memory_pin');
  assert.match(pinned.structuredContent.id, /^p_/);
  ok(await call(client, 'glossary_set', { term: 'Mel', definition: "Caroline's friend.", aliases: ['Melanie'] }), 'glossary_set');
  ok(await call(client, 'profile_set', { name: 'user', content: '# Caroline\nLikes tea.' }), 'profile_set');
  const profile = ok(await call(client, 'profile_get', { name: 'user' }), 'profile_get');
  assert.equal(profile.structuredContent.documents[0].content, '# Caroline\nLikes tea.');
  const boot = ok(await call(client, 'memory_boot', {}), 'memory_boot');
  assert.match(textOf(boot), /## Profile: user/);
  assert.match(textOf(boot), /Mel: Caroline's friend\./);
  ok(await call(client, 'digest_get', {}), 'digest_get');
  const candidates = ok(await call(client, 'candidates_list', {}), 'candidates_list');
  assert.deepEqual(candidates.structuredContent.candidates, []);
  const review = await call(client, 'candidate_review', { id: 'c_1', action: 'approve' });
  assert.equal(review.isError, true);
  assert.match(textOf(review), /no candidate "c_1"/);
  const exported = ok(await call(client, 'memory_export', {}), 'memory_export');
  assert.match(exported.structuredContent.jsonl, /LGBTQ support group/);
  ok(await call(client, 'memory_delete', { id: first }), 'memory_delete');

  // What MCP changed, seen through REST.
  const memories = await server.api('/v1/memories?status=all');
  assert.deepEqual(memories.json.memories.map((m) => [m.id, m.status]), [[second, 'archived']]);
  const notes = await server.api('/v1/conversations/notes/messages');
  assert.equal(notes.status, 200, notes.text);
  assert.deepEqual(notes.json.messages.map((m) => [m.content, m.source]), [['Caroline prefers tea to coffee.', 'mcp']]);
  assert.equal((await server.api('/v1/glossary/Mel')).json.definition, "Caroline's friend.");
  assert.equal((await server.api('/v1/profile/user')).json.content, '# Caroline\nLikes tea.');
  assert.equal((await server.api('/v1/precious')).json.precious.length, 1);
});

test('a bad argument is an isError result naming it; an unknown tool is -32602', async (t) => {
  const server = await serverForTest(t);
  const { client } = await connectV1(server);
  t.after(() => client.close());
  const bad = await call(client, 'memory_search', { query: 'x', limit: 1000 });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /limit: must be at most 100, got 1000/);
  const typo = await call(client, 'memory_search', { qurey: 'x' });
  assert.match(textOf(typo), /query: is required/);
  await assert.rejects(call(client, 'memory_fly', {}), (error) => {
    assert.equal(error.code, -32602);
    assert.match(error.message, /no tool "memory_fly"/);
    return true;
  });
});

test('a wrong key is a 401 with WWW-Authenticate before any session; ?token= works and stays out of the log', async (t) => {
  const server = await serverForTest(t);
  const refused = await postRpc(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    { key: `${server.key}x` });
  assert.equal(refused.status, 401, refused.text);
  assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.equal(refused.headers.get('mcp-session-id'), null);
  assert.equal(refused.json.jsonrpc, '2.0');
  assert.equal(typeof refused.json.error.code, 'number');
  await assert.rejects(connectV1(server, { key: 'cilia_wrong' }));

  const { client } = await connectV1(server, { key: null, url: `${server.url}/mcp?token=${encodeURIComponent(server.key)}` });
  t.after(() => client.close());
  assert.ok((await client.listTools()).tools.length > 0);
  assert.ok(!server.output().includes(server.key), 'the key never reaches the log');
});

test('a read-only key lists the read tools only and cannot write', async (t) => {
  const server = await serverForTest(t);
  const reader = await createKey(server, ['memory:read']);
  const { client } = await connectV1(server, { key: reader });
  t.after(() => client.close());
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS].sort());
  const write = await call(client, 'memory_upsert', { content: 'Nobody may write this down.' });
  assert.equal(write.isError, true);
  assert.match(textOf(write), /memory:write/);
  const chatOnly = await createKey(server, ['chat']);
  const refused = await postRpc(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    { key: chatOnly });
  assert.equal(refused.status, 403, refused.text);
  assert.equal((await server.api('/v1/memories')).json.memories.length, 0);
});

test("another namespace's memory is invisible", async (t) => {
  const dataDir = await dataDirForTest(t);
  const created = await runCli(['keys', 'create', '--namespace', 'other', '--scopes', 'admin', '--json'], { dataDir });
  assert.equal(created.code, 0, created.stderr);
  const otherKey = JSON.parse(created.stdout).key;
  const server = await serverForTest(t, { dataDir });
  assert.equal((await server.api('/v1/ingest/messages?sync=true', { body: TRIP })).status, 200);

  const { client } = await connectV1(server, { key: otherKey });
  t.after(() => client.close());
  const found = await call(client, 'memory_search', { query: 'support group' });
  assert.deepEqual(found.structuredContent.results, []);
  const pin = await call(client, 'memory_pin', { conversation_id: TRIP.conversation_id, message_ids: ['D1:3'] });
  assert.equal(pin.isError, true);
  const exported = await call(client, 'memory_export', {});
  assert.doesNotMatch(exported.structuredContent.jsonl, /support group/);
});

test('a deleted session is gone: reusing it is a 404', async (t) => {
  const server = await serverForTest(t);
  const { client, transport } = await connectV1(server);
  const session = transport.sessionId;
  await transport.terminateSession();
  await client.close();
  const reused = await postRpc(server, { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
  assert.equal(reused.status, 404, reused.text);
  assert.match(reused.json.error.message, /initialize again/);
});

test('the transport answers what the specification asks, and never a 5xx for bad input', async (t) => {
  const server = await serverForTest(t);
  const get = await request(server.url, '/mcp', { key: server.key, headers: { accept: 'text/event-stream' } });
  assert.equal(get.status, 405);

  const init = await postRpc(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {} } });
  assert.equal(init.status, 200, init.text);
  assert.equal(init.json.result.protocolVersion, '2025-03-26');
  const session = init.headers.get('mcp-session-id');
  const headers = { 'mcp-session-id': session };
  const note = await postRpc(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers });
  assert.equal(note.status, 202);
  assert.equal(note.text, '');
  const batch = await postRpc(server, [{ jsonrpc: '2.0', id: 2, method: 'ping' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }], { headers });
  assert.equal(batch.status, 200, batch.text);
  assert.deepEqual(batch.json.map((answer) => answer.id), [2, 3]);

  const sse = await postRpc(server, { jsonrpc: '2.0', id: 4, method: 'ping' }, { headers: { ...headers, accept: 'text/event-stream' } });
  assert.equal(sse.headers.get('content-type'), 'text/event-stream');
  assert.match(sse.text, /^event: message\ndata: \{.*"id":4.*\}\n\n$/);

  const foreign = await postRpc(server, { jsonrpc: '2.0', id: 5, method: 'ping' }, { headers: { ...headers, origin: 'http://evil.example' } });
  assert.equal(foreign.status, 403);

  for (const body of ['{"jsonrpc":"2.0","id":1,', '[]', '"x"', '['.repeat(5000), JSON.stringify(Array(100).fill({ jsonrpc: '2.0', id: 1, method: 'ping' }))]) {
    const reply = await postRpc(server, body, { headers });
    assert.ok(reply.status >= 400 && reply.status < 500, `${reply.status} for ${body.slice(0, 40)}`);
    assert.equal(reply.json?.jsonrpc, '2.0', reply.text);
  }
  const huge = await postRpc(server, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(9 << 20) } }), { headers });
  assert.equal(huge.status, 413);
});

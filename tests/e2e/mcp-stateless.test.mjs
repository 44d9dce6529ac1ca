// /mcp at revision 2026-07-28 (stateless: no initialize, the version in every request's _meta,
// server/discover, Mcp-Method and Mcp-Name), driven by the official v2 client
// (@modelcontextprotocol/client) pinned to it, in 'auto' negotiation, and in its default legacy
// mode; and by raw JSON-RPC for the header checks no client gets wrong on purpose.
import assert from 'node:assert/strict';
import test from 'node:test';

import { connectV2, postRpc, statelessRequest, textOf } from './lib/mcp.mjs';
import { serverForTest } from './lib/server.mjs';

const MESSAGES = {
  conversation_id: 'garden',
  messages: [{ id: 'g1', role: 'user', name: 'Lena', content: 'The tomatoes finally turned red on the balcony.', created_at: '2026-06-02T08:00:00Z' }],
};

test('a client pinned to 2026-07-28 discovers, lists and calls tools without a session', async (t) => {
  const server = await serverForTest(t);
  assert.equal((await server.api('/v1/ingest/messages?sync=true', { body: MESSAGES })).status, 200);
  const { client, transport } = await connectV2(server);
  t.after(() => client.close());
  assert.equal(transport.sessionId, undefined, 'no session in the stateless revision');
  const discovered = client.getDiscoverResult();
  assert.ok(discovered.supportedVersions.includes('2026-07-28'), JSON.stringify(discovered));
  assert.match(discovered.instructions, /memory_search/);

  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'memory_search'));
  const found = await client.callTool({ name: 'memory_search', arguments: { query: 'tomatoes balcony' } });
  assert.equal(found.isError, false, textOf(found));
  assert.match(textOf(found), /Lena: The tomatoes finally turned red/);
  const kept = await client.callTool({ name: 'memory_upsert', arguments: { content: 'Lena grows tomatoes on her balcony.' } });
  assert.equal(kept.isError, false, textOf(kept));
  assert.equal((await server.api('/v1/memories')).json.memories[0].content, 'Lena grows tomatoes on her balcony.');
});

test("the v2 client's auto negotiation picks 2026-07-28, and its legacy default still initializes", async (t) => {
  const server = await serverForTest(t);
  const auto = await connectV2(server, { mode: 'auto' });
  t.after(() => auto.client.close());
  assert.equal(auto.transport.sessionId, undefined, 'auto chose the stateless revision');
  assert.ok(auto.client.getDiscoverResult(), 'auto adopted the discover result');
  assert.ok((await auto.client.listTools()).tools.length > 0);

  const legacy = await connectV2(server, { mode: 'legacy' });
  t.after(() => legacy.client.close());
  assert.match(legacy.transport.sessionId ?? '', /^[0-9a-f]{64}$/, 'legacy mode opened a session');
  assert.equal(legacy.client.getDiscoverResult(), undefined);
  assert.ok((await legacy.client.listTools()).tools.length > 0);
});

test('stateless requests whose headers do not match the body, or with an unknown version, are modern 400s', async (t) => {
  const server = await serverForTest(t);
  const discover = statelessRequest(1, 'server/discover');
  const ok = await postRpc(server, discover.body, { headers: discover.headers });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.result.resultType, 'complete');
  assert.equal(ok.json.result._meta['io.modelcontextprotocol/serverInfo'].name, 'cilia');
  assert.equal(ok.headers.get('mcp-session-id'), null);

  const call = statelessRequest(2, 'tools/call', { name: 'memory_search', arguments: { query: 'x' } });
  const wrongName = await postRpc(server, call.body, { headers: { ...call.headers, 'mcp-name': 'memory_recall' } });
  assert.equal(wrongName.status, 400);
  assert.equal(wrongName.json.error.code, -32020);
  const noMethod = await postRpc(server, call.body, { headers: { ...call.headers, 'mcp-method': '' } });
  assert.equal(noMethod.json.error.code, -32020);

  const old = statelessRequest(3, 'tools/list');
  old.body.params._meta['io.modelcontextprotocol/protocolVersion'] = '1900-01-01';
  const unsupported = await postRpc(server, old.body, { headers: { ...old.headers, 'mcp-protocol-version': '1900-01-01' } });
  assert.equal(unsupported.status, 400);
  assert.equal(unsupported.json.error.code, -32022);
  assert.deepEqual(unsupported.json.error.data.supported, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);

  const ping = statelessRequest(4, 'ping');
  const unknown = await postRpc(server, ping.body, { headers: ping.headers });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, -32601);
});

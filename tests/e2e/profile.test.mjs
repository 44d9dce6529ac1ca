// The L2 profile, the turn records and cache statistics, and per-key feature switches, through
// the real binary.
import assert from 'node:assert/strict';
import test from 'node:test';

import { dataDirForTest, runCli, serverForTest, startServer } from './lib/server.mjs';

const PERSONA = '# Mira\n\nYou are Mira, warm and brief. 你好 🌿\n';

test('profile documents are stored verbatim and outlive a restart', async (t) => {
  const dataDir = await dataDirForTest(t);
  const first = await startServer({ dataDir });
  try {
    const put = await first.api('/v1/profile/persona', { method: 'PUT', body: { content: PERSONA } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.name, 'persona');
    assert.equal(put.json.content, PERSONA);
    assert.match(put.json.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const bad = await first.api('/v1/profile/Persona', { method: 'PUT', body: { content: 'x' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.json.error.message, /^name:/);
  } finally {
    await first.stop({ keepData: true });
  }
  const second = await serverForTest(t, { dataDir });
  const listed = await second.api('/v1/profile');
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.json.documents.map((d) => [d.name, d.content]), [['persona', PERSONA]]);
  const removed = await second.api('/v1/profile/persona', { method: 'DELETE' });
  assert.equal(removed.status, 200, removed.text);
  assert.equal((await second.api('/v1/profile/persona')).status, 404);
});

test('turns and cache statistics answer in their shapes before any chat', async (t) => {
  const server = await serverForTest(t);
  const turns = await server.api('/v1/turns?limit=10');
  assert.equal(turns.status, 200, turns.text);
  assert.deepEqual(turns.json, { turns: [], next_cursor: null });
  const stats = await server.api('/v1/stats/cache?days=7');
  assert.equal(stats.status, 200, stats.text);
  assert.deepEqual(stats.json.days, []);
  assert.match(stats.json.first_day, /^\d{4}-\d\d-\d\d$/);
  assert.equal((await server.api('/v1/turns?limit=0')).status, 400);
});

test('a key created with feature switches shows them, and bad switches are refused by name', async (t) => {
  const dataDir = await dataDirForTest(t);
  const refused = await runCli(['keys', 'create', '--scopes', 'chat', '--features', 'memory=off,telepathy=on'], { dataDir });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /telepathy/);
  const created = await runCli(['keys', 'create', '--scopes', 'chat', '--features', 'memory=off,recall_tool=on', '--json'], {
    dataDir,
  });
  assert.equal(created.code, 0, created.stderr);
  assert.deepEqual(JSON.parse(created.stdout).features, { memory: false, recall_tool: true });

  const server = await serverForTest(t, { dataDir });
  const keys = await server.api('/v1/keys');
  assert.equal(keys.status, 200, keys.text);
  assert.deepEqual(keys.json.keys.map((k) => k.features), [{ memory: false, recall_tool: true }]);
  const made = await server.api('/v1/keys', { body: { scopes: ['chat'], features: { compression: false } } });
  assert.equal(made.status, 200, made.text);
  assert.deepEqual(made.json.features, { compression: false });
  const bad = await server.api('/v1/keys', { body: { scopes: ['chat'], features: { memory: 'off' } } });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.json.error.message, /features\.memory/);
});

// GET /openapi.json on the real binary: answered without a key, JSON, OpenAPI 3.1, the binary's
// version; and every GET it describes on a path without parameters is a route `cilia serve`
// answers (tests/unit/api/routes_test.cpp holds the whole route table against the document).
import assert from 'node:assert/strict';
import test from 'node:test';

import { binaryExists, ciliaBin, request, serverForTest } from './lib/server.mjs';

const skip = binaryExists() ? false : `no cilia binary at ${ciliaBin}`;

test('GET /openapi.json answers without a key and describes the running server', { skip }, async (t) => {
  const server = await serverForTest(t);
  const reply = await request(server.url, '/openapi.json');
  assert.equal(reply.status, 200, reply.text);
  assert.match(reply.headers.get('content-type'), /^application\/json/);
  assert.ok(reply.json, 'the body parses as JSON');
  assert.equal(reply.json.openapi, '3.1.0');
  const health = await request(server.url, '/health');
  assert.equal(reply.json.info.version, health.json.version);

  const plainGets = Object.entries(reply.json.paths)
    .filter(([path, item]) => !path.includes('{') && item.get && path !== '/mcp')
    .map(([path]) => path);
  assert.ok(plainGets.length > 20, `only ${plainGets.length} GET operations described`);
  for (const path of plainGets) {
    const got = await request(server.url, path, { key: server.key });
    assert.ok(got.status !== 404 && got.status !== 405, `GET ${path}: ${got.status} ${got.text.slice(0, 200)}`);
  }
});

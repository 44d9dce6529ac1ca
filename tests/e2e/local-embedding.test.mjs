// `[embedding] kind = "local"`: a tiny random-weight BERT GGUF (written by build/tests/write_tiny_gguf,
// tests/unit/testing/tiny_gguf.h) run in process. Recall through the vector lane alone, a re-embed
// after the model file changes (GET /v1/jobs' embedding), a bad file refused at start, and `cilia
// doctor`'s line for the model.
// Skipped for a binary built with -DCILIA_LOCAL_EMBEDDING=OFF (no write_tiny_gguf beside it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import test from 'node:test';

import { ciliaBin, dataDirForTest, makeTempDir, removeDir, runCli, startServer } from './lib/server.mjs';

const writer = join(dirname(ciliaBin), 'tests', 'write_tiny_gguf');
const skip = existsSync(writer) ? false : `no ${writer} (a build without CILIA_LOCAL_EMBEDDING)`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function modelDir(t) {
  const dir = await makeTempDir('cilia-e2e-model-');
  t.after(() => removeDir(dir));
  return dir;
}

function writeModel(path, ...args) {
  execFileSync(writer, [path, ...args]);
}

// The vector lane alone: what is found is found by the model's vectors.
const VECTOR_ONLY = '[retrieval]\nvector_weight = 1\nlexical_weight = 0\nmin_vector_similarity = -1\nrelative_floor = 0\n';

function localEnv(model) {
  return { CILIA_EMBEDDING_KIND: 'local', CILIA_EMBEDDING_MODEL: model, CILIA_EMBEDDING_THREADS: '2' };
}

// Three conversations in words of the tiny model's vocabulary.
const CONVERSATIONS = [
  ['team', '我们组新来的小周 我们组新来的小周'],
  ['drinks', 'coffee coffee 😀 coffee'],
  ['greeting', 'hello world hello world'],
];

async function ingestAll(server) {
  for (const [id, content] of CONVERSATIONS) {
    const reply = await server.api('/v1/ingest/messages?sync=true', {
      body: { conversation_id: id, messages: [{ id: `${id}:1`, role: 'user', content, created_at: '2026-11-02T10:00:00Z' }] },
    });
    assert.equal(reply.status, 200, reply.text);
  }
}

async function embedding(server) {
  const reply = await server.api('/v1/jobs');
  assert.equal(reply.status, 200, reply.text);
  return reply.json.embedding;
}

async function topConversation(server, query) {
  const reply = await server.api('/v1/search', { body: { query, limit: 3 } });
  assert.equal(reply.status, 200, reply.text);
  assert.ok(reply.json.results.length > 0, reply.text);
  return reply.json.results[0].conversation_id;
}

test('recall finds each conversation by the local model\'s vectors alone', { skip }, async (t) => {
  const model = join(await modelDir(t), 'tiny.gguf');
  writeModel(model, '--name', 'tiny-e2e');
  const server = await startServer({ env: localEnv(model), config: VECTOR_ONLY });
  t.after(() => server.stop());
  await ingestAll(server);
  const settings = (await server.api('/v1/settings')).json;
  assert.match(settings.embedder.id, /^local:tiny-e2e:[0-9a-f]{12}:32$/);
  assert.equal(settings.embedder.dimension, 32);
  assert.equal(settings.index.windows_without_vector, 0, JSON.stringify(settings.index));
  assert.equal(await topConversation(server, '小周'), 'team');
  assert.equal(await topConversation(server, 'coffee 😀'), 'drinks');
  assert.equal(await topConversation(server, 'Hello, world!'), 'greeting');

  // `cilia doctor` loads the same file and describes it.
  const doctor = await runCli(['doctor', '--json'], { dataDir: server.dataDir, env: localEnv(model) });
  const check = JSON.parse(doctor.stdout).checks.find((c) => c.name === 'embedder');
  assert.equal(check.verdict, 'ok', doctor.stdout);
  assert.match(check.detail, new RegExp(`^local model ${model}: tiny-e2e \\(bert\\), 32 dimensions, \\w+ pooling, .* loaded in \\d+ ms$`));
});

test('another model file gets another embedder id, and every window is embedded again in the background', { skip }, async (t) => {
  const dir = await modelDir(t);
  const model = join(dir, 'model.gguf');
  writeModel(model, '--seed', '1');
  const dataDir = await dataDirForTest(t);
  const first = await startServer({ dataDir, env: localEnv(model), config: VECTOR_ONLY });
  await ingestAll(first);
  const before = await embedding(first);
  assert.equal(before.windows, 3);
  assert.equal(before.windows_embedded, 3);
  await first.stop({ keepData: true });

  writeModel(model, '--seed', '2');  // the same name and shape, other weights
  const second = await startServer({ dataDir, env: localEnv(model), config: VECTOR_ONLY });
  t.after(() => second.stop());
  let now = await embedding(second);
  assert.notEqual(now.embedder, before.embedder);
  assert.match(now.embedder, /^local:tiny-bert:[0-9a-f]{12}:32$/);
  for (let i = 0; i < 100 && now.windows_embedded < now.windows; i++) {
    await sleep(200);
    now = await embedding(second);
  }
  assert.deepEqual(now, { embedder: now.embedder, windows: 3, windows_embedded: 3 });
  // The vector lane alone finds every window: each has a vector of the new model.
  const reply = await second.api('/v1/search', { body: { query: '小周', limit: 10 } });
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.json.results.map((r) => r.conversation_id).sort(), ['drinks', 'greeting', 'team']);
});

test('a model file that is no embedding model stops the server at start, naming the file and the problem', { skip }, async (t) => {
  const dir = await modelDir(t);
  const text = join(dir, 'notes.gguf');
  await writeFile(text, 'not a model\n');
  await assert.rejects(startServer({ env: localEnv(text) }), (error) => {
    assert.match(error.message, new RegExp(`embedding\\.model: ${text}: not a GGUF file`));
    return true;
  });
  const chat = join(dir, 'chat.gguf');
  writeModel(chat, '--architecture', 'llama');
  await assert.rejects(startServer({ env: localEnv(chat) }), (error) => {
    assert.match(error.message, /architecture "llama" is not an embedding \(BERT-family encoder\) model/);
    return true;
  });
});

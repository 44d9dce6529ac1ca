// The command line: version, ingest, recall, export/import, config errors.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'node:test';

import { dataDirForTest, makeTempDir, removeDir, runCli, serverForTest } from './lib/server.mjs';

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

// A file outside every data dir, removed after the test.
async function fileForTest(t, name, content) {
  const dir = await makeTempDir('cilia-e2e-files-');
  t.after(() => removeDir(dir));
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

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

test('beside a running server a writing command refuses and a reading command works', async (t) => {
  const server = await serverForTest(t);
  const ingested = await server.api('/v1/ingest/messages?sync=true', { body: CONVERSATIONS[0] });
  assert.equal(ingested.status, 200, ingested.text);

  const file = await fileForTest(t, 'more.jsonl', jsonl([CONVERSATIONS[1]]));
  const write = await runCli(['ingest', file], { dataDir: server.dataDir, timeoutMs: 30_000 });
  assert.notEqual(write.code, 0, 'ingest beside a running server must refuse');
  assert.ok((write.stderr + write.stdout).trim().length > 0, 'and say why');

  const read = await recallJson(server.dataDir, 'fire lookout');
  assert.ok(read.some((r) => r.message_ids.includes('a1')), JSON.stringify(read));
});

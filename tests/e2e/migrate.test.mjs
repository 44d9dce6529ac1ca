// `cilia migrate --from SRC --to DST`: a whole store copied losslessly (the target's `cilia export`
// is the source's, byte for byte), a rerun that finds everything there, a refused target. On
// SQLite a data dir to another; with CILIA_E2E_STORE=postgres also SQLite → PostgreSQL → SQLite.
import assert from 'node:assert/strict';
import test from 'node:test';

import { dataDirForTest, fileForTest, onPostgres, runCli, serverForTest, storeEnv } from './lib/server.mjs';

const CONVERSATIONS = [
  {
    conversation_id: 'mig-a',
    title: 'Weekend',
    messages: [
      { id: 'a1', role: 'user', name: 'Mina', content: 'We hiked up to the old fire lookout on Saturday.', created_at: '2023-03-04T09:00:00Z' },
      { id: 'a2', role: 'assistant', content: '山顶的风很大，但是能看到整个湖。🌄', created_at: '2023-03-04T09:00:05Z' },
    ],
  },
  {
    conversation_id: 'mig-b',
    messages: [{ id: 'b1', role: 'user', content: 'The lookout tower was built in 1932.', created_at: '2023-03-20T18:00:00Z' }],
  },
];

const jsonl = (objects) => objects.map((o) => JSON.stringify(o)).join('\n') + '\n';

// A SQLite data dir with namespaces "default" and "work", whatever store the suite runs on.
async function sqliteSource(t) {
  const dir = await dataDirForTest(t);
  const file = await fileForTest(t, 'fixture.jsonl', jsonl(CONVERSATIONS));
  for (const ns of ['default', 'work']) {
    const run = await runCli(['ingest', file, '--data', dir, '--namespace', ns], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
  return dir;
}

// `cilia export` of a SQLite data dir (flags only: no store settings from the suite).
async function exportSqlite(dir, ns) {
  const run = await runCli(['export', '--data', dir, '--namespace', ns], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  return run.stdoutBytes;
}

async function migrate(from, to, cwd) {
  return runCli(['migrate', '--from', from, '--to', to], { cwd });
}

test('migrate copies a data dir into another, byte for byte, and a rerun copies nothing twice', async (t) => {
  const source = await sqliteSource(t);
  const target = await dataDirForTest(t);
  const run = await migrate(`sqlite:${source}`, `sqlite:${target}`, source);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /migrated 2 namespaces \(0 already complete\).*: 4 conversations, 6 messages, 0 files/);
  assert.match(run.stdout, /API keys .* not copied/);
  assert.match(run.stderr, /work: 2 conversations, 3 messages/);
  for (const ns of ['default', 'work']) {
    assert.ok((await exportSqlite(target, ns)).equals(await exportSqlite(source, ns)), `${ns} differs`);
  }
  const found = await runCli(['search', 'fire lookout', '--json', '--data', target, '--namespace', 'work'], { cwd: target });
  assert.equal(found.code, 0, found.stderr);
  assert.ok(JSON.parse(found.stdout).results.length > 0, found.stdout);

  const again = await migrate(`sqlite:${source}`, `sqlite:${target}`, source);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /migrated 0 namespaces \(2 already complete\)/);
  assert.ok((await exportSqlite(target, 'work')).equals(await exportSqlite(source, 'work')));
});

test('migrate refuses a target with other records, a running server, and bad stores', async (t) => {
  const source = await sqliteSource(t);
  const other = await dataDirForTest(t);
  const file = await fileForTest(t, 'other.jsonl', jsonl([{ conversation_id: 'x', messages: [{ role: 'user', content: 'not from the source' }] }]));
  assert.equal((await runCli(['ingest', file, '--data', other, '--namespace', 'work'], { cwd: other })).code, 0);
  const before = await exportSqlite(other, 'work');
  const refused = await migrate(`sqlite:${source}`, `sqlite:${other}`, source);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /namespace "work" with other records/);
  assert.ok((await exportSqlite(other, 'work')).equals(before), 'the target was not touched');

  const served = await dataDirForTest(t);
  await serverForTest(t, { dataDir: served });
  const busy = await migrate(`sqlite:${source}`, `sqlite:${served}`, source);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /in use by a running `cilia serve`.*stop it before migrating/);

  const bad = await migrate('mysql://x', `sqlite:${other}`, source);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--from: "mysql:\/\/x" is not sqlite:DIR or postgresql:\/\//);
  const same = await migrate(`sqlite:${source}`, `sqlite:${source}/`, source);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /the same store/);
  const missing = await migrate(`sqlite:${source}/nowhere`, `sqlite:${other}`, source);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /does not exist/);
});

test('migrate SQLite → PostgreSQL → SQLite keeps every export byte-identical', { skip: !onPostgres && 'needs CILIA_E2E_STORE=postgres' }, async (t) => {
  const source = await sqliteSource(t);
  const pgDir = await dataDirForTest(t); // its database, fresh
  const url = (await storeEnv(pgDir)).CILIA_STORE_URL;
  const there = await migrate(`sqlite:${source}`, url, source);
  assert.equal(there.code, 0, there.stderr);
  assert.match(there.stdout, /migrated 2 namespaces/);
  for (const ns of ['default', 'work']) {
    const exported = await runCli(['export', '--namespace', ns], { dataDir: pgDir });
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(exported.stdoutBytes.equals(await exportSqlite(source, ns)), `${ns} differs in PostgreSQL`);
  }
  const found = await runCli(['search', 'fire lookout', '--json', '--namespace', 'work'], { dataDir: pgDir });
  assert.equal(found.code, 0, found.stderr);
  assert.ok(JSON.parse(found.stdout).results.length > 0, found.stdout);

  const back = await dataDirForTest(t);
  const home = await migrate(url, `sqlite:${back}`, back);
  assert.equal(home.code, 0, home.stderr);
  assert.match(home.stdout, /migrated 2 namespaces \(0 already complete\)/);
  for (const ns of ['default', 'work']) {
    assert.ok((await exportSqlite(back, ns)).equals(await exportSqlite(source, ns)), `${ns} differs after the round trip`);
  }
  const again = await migrate(`sqlite:${source}`, url, source);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /migrated 0 namespaces \(2 already complete\)/);
});

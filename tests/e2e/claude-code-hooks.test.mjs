// integrations/claude-code/cilia-hook.mjs run as Claude Code runs it — a child process with the
// hook payload on stdin — against the real binary, with the hand-written payloads and transcript
// of tests/fixtures/claude-code/ (the documented hook format).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import test from 'node:test';

import { makeTempDir, removeDir, repoRoot, serverForTest } from './lib/server.mjs';

const hookScript = join(repoRoot, 'integrations', 'claude-code', 'cilia-hook.mjs');
const settingsFile = join(repoRoot, 'integrations', 'claude-code', 'settings.json');
const fixtures = join(repoRoot, 'tests', 'fixtures', 'claude-code');
const SESSION = '5d1a1f0e-7c1b-4c55-9a53-2f4b9c6e7a10';
const uuid = (n) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const transcriptLines = readFileSync(join(fixtures, 'transcript.jsonl'), 'utf8').split('\n').filter(Boolean);

// A scratch home for one test: its own state dir, HOME and copy of the transcript.
async function scratch(t) {
  const dir = await makeTempDir('cilia-cc-');
  t.after(() => removeDir(dir));
  const transcript = join(dir, 'transcript.jsonl');
  copyFileSync(join(fixtures, 'transcript.jsonl'), transcript);
  return { dir, transcript, stateDir: join(dir, 'state') };
}

function payload(name, transcript) {
  return readFileSync(join(fixtures, `${name}.json`), 'utf8').replace('TRANSCRIPT_PATH', transcript);
}

function hookEnv(home, extra) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('CILIA_')) env[name] = value;
  }
  return { ...env, HOME: home, XDG_STATE_HOME: join(home, 'xdg-state'), XDG_CONFIG_HOME: join(home, 'xdg-config'), ...extra };
}

// Runs `command` (default: node on the hook script) with `input` on stdin, as Claude Code would.
function runHook(input, { home, env = {}, command } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const argv = command ? ['bash', ['-c', command]] : [process.execPath, [hookScript]];
    const proc = spawn(argv[0], argv[1], { env: hookEnv(home, env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    proc.stdout.on('data', (c) => out.push(c));
    proc.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - started, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    proc.stdin.end(input);
  });
}

function contextOf(run, event) {
  assert.equal(run.code, 0, run.stderr);
  const reply = JSON.parse(run.stdout);
  assert.equal(reply.hookSpecificOutput.hookEventName, event);
  return reply.hookSpecificOutput.additionalContext;
}

async function memoryKey(server) {
  const reply = await server.api('/v1/keys', { body: { name: 'claude-code', scopes: ['memory:read', 'memory:write'] } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.key;
}

async function liveHookEnv(server, stateDir) {
  return { CILIA_URL: server.url, CILIA_KEY: await memoryKey(server), CILIA_HOOK_STATE_DIR: stateDir };
}

async function storedMessages(server) {
  const reply = await server.api(`/v1/conversations/${SESSION}/messages?limit=100`);
  return reply.status === 404 ? [] : reply.json.messages;
}

const bufferFiles = (stateDir) => (existsSync(join(stateDir, 'buffer')) ? readdirSync(join(stateDir, 'buffer')) : []);

test('SessionStart gives Claude the boot pack: the profile and precious passages, not the chat persona', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);

  const empty = await runHook(payload('session-start', transcript), { home: dir, env });
  assert.equal(empty.code, 0, empty.stderr);
  assert.equal(empty.stdout, '', 'an empty memory adds nothing to the context');

  for (const [name, content] of [
    ['user', 'The owner is Ada. She is allergic to peanuts.'],
    ['persona', 'You are Mira, warm and brief.'],
  ]) {
    assert.equal((await server.api(`/v1/profile/${name}`, { method: 'PUT', body: { content } })).status, 200);
  }
  const seeded = { conversation_id: 'garden', messages: [{ id: 'g1', role: 'user', content: 'The first tomato of the year is always for Grandma.' }] };
  assert.equal((await server.api('/v1/ingest/messages?sync=true', { body: seeded })).status, 200);
  assert.equal((await server.api('/v1/precious', { body: { conversation_id: 'garden', message_ids: ['g1'] } })).status, 201);

  const run = await runHook(payload('session-start', transcript), { home: dir, env });
  const context = contextOf(run, 'SessionStart');
  assert.match(context, /## Profile: user\nThe owner is Ada\. She is allergic to peanuts\./);
  assert.match(context, /## Precious passages\n- "The first tomato of the year is always for Grandma\."/);
  assert.doesNotMatch(context, /Mira/, 'the chat persona is not Claude Code\'s');
});

test('UserPromptSubmit adds what other conversations hold about the prompt, and nothing unrelated', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);
  const plant = async (conversation_id, content) => {
    const body = { conversation_id, messages: [{ id: `${conversation_id}-1`, role: 'user', content, created_at: '2026-10-01T18:00:00Z' }] };
    assert.equal((await server.api('/v1/ingest/messages?sync=true', { body })).status, 200);
  };
  await plant('pottery', 'Our kiln in the garage reaches 1240 degrees for the stoneware glaze firing.');
  await plant('bikes', 'I replaced the chain on my road bike last weekend and oiled the gears.');
  await plant(SESSION, 'The stoneware glaze firing notes live in firing-log.md.'); // this session's own words

  const run = await runHook(payload('user-prompt-submit', transcript), { home: dir, env });
  const context = contextOf(run, 'UserPromptSubmit');
  assert.match(context, /\[2026-10-01 · pottery\]\nUser: Our kiln in the garage reaches 1240 degrees/);
  assert.doesNotMatch(context, /road bike/);
  assert.doesNotMatch(context, /firing-log\.md/, 'the session\'s own turns are already in its context');

  const unrelated = JSON.stringify({ ...JSON.parse(payload('user-prompt-submit', transcript)), prompt: 'Quantum chromodynamics lattice' });
  const none = await runHook(unrelated, { home: dir, env });
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, '', 'a prompt memory knows nothing about adds nothing');
});

test('Stop stores the turns of the transcript under the session id, verbatim, and never twice', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);

  const first = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, '', 'a Stop hook prints nothing: stdout would only reach the debug log');
  const messages = await storedMessages(server);
  assert.deepEqual(
    messages.map((m) => [m.id, m.role]),
    [[uuid(1), 'user'], [uuid(3), 'assistant'], [uuid(6), 'assistant'], [uuid(9), 'user'], [uuid(10), 'user'], [uuid(11), 'assistant']],
    'the lines with text, in order: no thinking, tool call or result, caveat or system line',
  );
  const text = (m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''));
  assert.equal(
    text(messages[4]),
    '<system-reminder>\nThe user opened the file firing-log.md in the IDE.\n</system-reminder>\n\nNext time remind me to order more cone 6 witness cones.',
    'Claude Code\'s reminder is kept verbatim: cilia keeps it out of titles and the index itself',
  );
  assert.match(messages[0].created_at, /^2026-11-20T09:00:00/);
  const listed = (await server.api('/v1/conversations')).json.conversations.find((c) => c.id === SESSION);
  assert.equal(listed.title, 'Our kiln in the garage fires stoneware glaze at cone 6, whic');
  assert.equal(listed.message_count, 6);

  let found = [];
  for (let i = 0; i < 50 && !found.length; i += 1) {
    found = (await server.api('/v1/search', { body: { query: 'witness cones' } })).json.results;
    if (!found.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(found[0]?.conversation_id, SESSION, 'the stored turns are windowed and searchable');
  const reminder = await server.api('/v1/search', { body: { query: 'opened the file firing-log.md in the IDE', exact: true } });
  assert.deepEqual(reminder.json.results, [], 'cilia leaves the stored <system-reminder> out of the index');

  const again = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(again.code, 0, again.stderr);
  rmSync(join(stateDir, 'sessions'), { recursive: true }); // forget what was sent: the ids still hold
  const fresh = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal((await storedMessages(server)).length, 6, 'sending the transcript again stores nothing twice');
  assert.deepEqual(bufferFiles(stateDir), [], 'nothing is left waiting');
});

test('the title is the first prompt typed: not a slash command\'s echo, not the reminder it opens with', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);
  const byUuid = (n) => transcriptLines.find((l) => l.includes(`"uuid":"${uuid(n)}"`));
  writeFileSync(transcript, `${[byUuid(8), byUuid(9), byUuid(10), byUuid(11)].join('\n')}\n`);
  const run = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(run.code, 0, run.stderr);
  const listed = (await server.api('/v1/conversations')).json.conversations.find((c) => c.id === SESSION);
  assert.equal(listed.title, 'Next time remind me to order more cone 6 witness cones.');
});

test('Stop waits briefly for a final reply the transcript has not written yet', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);
  writeFileSync(transcript, `${transcriptLines.slice(0, -1).join('\n')}\n`);
  const running = runHook(payload('stop', transcript), { home: dir, env });
  setTimeout(() => appendFileSync(transcript, `${transcriptLines.at(-1)}\n`), 300);
  const run = await running;
  assert.equal(run.code, 0, run.stderr);
  assert.equal((await storedMessages(server)).at(-1).id, uuid(11));
});

test('a message id stored earlier with other content is left out, and the rest of the turns still land', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);
  const earlier = { conversation_id: SESSION, messages: [{ id: uuid(6), role: 'assistant', content: 'An older wording of this reply.' }] };
  assert.equal((await server.api('/v1/ingest/messages?sync=true', { body: earlier })).status, 200);
  const run = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(run.code, 0, run.stderr);
  const messages = await storedMessages(server);
  assert.equal(messages.length, 6);
  assert.equal(messages.find((m) => m.id === uuid(6)).content, 'An older wording of this reply.');
  assert.deepEqual(bufferFiles(stateDir), [], 'a refused message is not retried for ever');
});

// The hook's own time, from its debug line (the wall clock adds Node's start, which a loaded test
// machine stretches to seconds).
function ownMs(run, event) {
  const took = new RegExp(`cilia-hook: ${event} took (\\d+) ms`).exec(run.stderr);
  assert.ok(took, `${event} finished its work (${run.stderr})`);
  return Number(took[1]);
}

// Nothing listens on port 1 of the loopback (a free port picked at random could be taken by
// another test's server before the hook connects).
const CLOSED = 'http://127.0.0.1:1';
const EVENTS = { 'session-start': 'SessionStart', 'user-prompt-submit': 'UserPromptSubmit', stop: 'Stop', 'session-end': 'SessionEnd' };

test('with cilia down every hook exits 0 at once with nothing to say; Stop keeps the turns and the next run sends them', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const down = { CILIA_URL: CLOSED, CILIA_KEY: 'cilia_unused', CILIA_HOOK_STATE_DIR: stateDir };
  for (const [name, event] of Object.entries(EVENTS)) {
    const quiet = await runHook(payload(name, transcript), { home: dir, env: down });
    assert.equal(quiet.code, 0, `${name}: ${quiet.stderr}`);
    assert.equal(quiet.stdout, '', name);
    assert.equal(quiet.stderr, '', `${name}: quiet without CILIA_HOOK_DEBUG`);
    const timed = await runHook(payload(name, transcript), { home: dir, env: { ...down, CILIA_HOOK_DEBUG: '1' } });
    assert.equal(timed.code, 0, `${name}: ${timed.stderr}`);
    assert.equal(timed.stdout, '', name);
    assert.ok(ownMs(timed, event) < 1000, `${name} against a closed port: ${timed.stderr}`);
  }
  assert.equal(bufferFiles(stateDir).length, 1, 'Stop kept the turns once; later runs found nothing new');

  const server = await serverForTest(t);
  const env = await liveHookEnv(server, stateDir);
  const start = await runHook(payload('session-start', transcript), { home: dir, env });
  assert.equal(start.code, 0, start.stderr);
  assert.deepEqual(bufferFiles(stateDir), []);
  assert.equal((await storedMessages(server)).length, 6, 'the next SessionStart sent what Stop kept');
});

test('a cilia that accepts and never answers costs a prompt no more than the hook\'s budget', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const sockets = [];
  const silent = createServer((socket) => sockets.push(socket));
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const env = { CILIA_URL: `http://127.0.0.1:${silent.address().port}`, CILIA_KEY: 'cilia_unused', CILIA_HOOK_STATE_DIR: stateDir, CILIA_HOOK_DEBUG: '1' };
  const prompt = await runHook(payload('user-prompt-submit', transcript), { home: dir, env });
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.equal(prompt.stdout, '');
  assert.ok(ownMs(prompt, 'UserPromptSubmit') <= 2100, prompt.stderr);
  const stop = await runHook(payload('stop', transcript), { home: dir, env });
  assert.equal(stop.code, 0, stop.stderr);
  assert.ok(ownMs(stop, 'Stop') <= 5100, stop.stderr);
  assert.equal(bufferFiles(stateDir).length, 1, 'the unanswered turns wait in the buffer');
});

test('the settings snippet parses, names the events the script handles, and its commands run the script', async (t) => {
  const { dir, transcript, stateDir } = await scratch(t);
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const events = Object.keys(settings.hooks);
  assert.deepEqual(events.sort(), ['SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
  // The command names the script at ~/.claude/hooks/, as the README installs it.
  mkdirSync(join(dir, '.claude', 'hooks'), { recursive: true });
  copyFileSync(hookScript, join(dir, '.claude', 'hooks', 'cilia-hook.mjs'));
  // The script's budgets per event, as it declares them.
  const declared = /const BUDGET_MS = (\{[^}]*\})/.exec(readFileSync(hookScript, 'utf8'))[1];
  const budgets = JSON.parse(declared.replace(/(\w+):/g, '"$1":'));
  assert.deepEqual(Object.keys(budgets).sort(), events);
  const fileOf = Object.fromEntries(Object.entries(EVENTS).map(([name, event]) => [event, name]));
  for (const event of events) {
    const groups = settings.hooks[event];
    assert.equal(groups.length, 1, event);
    assert.equal(groups[0].matcher, undefined, `${event}: every occurrence`);
    const [handler] = groups[0].hooks;
    assert.equal(handler.type, 'command');
    assert.match(handler.command, /cilia-hook\.mjs/);
    const env = { CILIA_URL: CLOSED, CILIA_HOOK_STATE_DIR: stateDir, CILIA_HOOK_DEBUG: '1' };
    const run = await runHook(payload(fileOf[event], transcript), { home: dir, env, command: handler.command });
    assert.equal(run.code, 0, `${event}: ${run.stderr}`);
    assert.ok(ownMs(run, event) < 1000, `${event}: the script handled it`);
    assert.ok(handler.timeout * 1000 >= budgets[event] + 1500, `${event}: Claude Code waits past the script's own budget`);
  }
});

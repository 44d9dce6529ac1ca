// The real Claude Code CLI (@anthropic-ai/claude-code, pinned in package.json) pointed at cilia:
// `claude -p` in a scratch home with ANTHROPIC_BASE_URL at cilia and cilia's anthropic-kind
// provider the fake upstream, two sessions. The second session's upstream request holds what the
// first one said, in cilia's memory blocks; Claude Code's own cache_control markers reach the
// upstream and no request carries more than the four the Messages API allows. Claude Code's
// requests go through a recording pass-through, so the test output says what it called.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MODELS, openGateway, rawLastUserText, systemTextOf, turnContextOf, uniqueId, waitUntilSearchable } from './lib/gateway.mjs';

// The native binary of the platform package, which the wrapper's postinstall copies into its
// bin/ (an install without scripts leaves a stub there that only prints an error).
const modules = join(fileURLToPath(new URL('.', import.meta.url)), 'node_modules');
const nativeBin = join(modules, '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude');
const claudeBin = existsSync(nativeBin) ? nativeBin : join(modules, '.bin', 'claude');
const RUN_TIMEOUT_MS = 120_000;
// Claude Code's ids change every few months: every one of them routed by patterns (docs/clients.md).
const gw = await openGateway({
  chat: MODELS.anthropic,
  aliases: { 'claude-*-haiku-*': 'anth/claude-fake-mini', 'claude-haiku-*': 'anth/claude-fake-mini', 'claude-*': MODELS.anthropic },
});
const homes = [];
let recorder = null;
after(async () => {
  await gw.stop();
  if (recorder) await new Promise((resolve) => recorder.server.close(resolve));
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

// A loopback pass-through to cilia that notes each request's method, path and answer status.
async function startRecorder(target) {
  const seen = [];
  const { hostname, port } = new URL(target);
  const server = createServer((req, res) => {
    const call = { call: `${req.method} ${req.url.split('?')[0]}`, status: 0, body: '' };
    seen.push(call);
    req.on('data', (chunk) => (call.body += chunk));
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (reply) => {
      call.status = reply.statusCode;
      res.writeHead(reply.statusCode, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, url: `http://127.0.0.1:${server.address().port}` };
}

// A scratch home: HOME, the XDG dirs and CLAUDE_CONFIG_DIR inside it, nothing of the machine's
// user. The switches keep Claude Code off every network but cilia's (docs/clients.md).
function claudeEnv(home, baseUrl) {
  const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', TERM: 'dumb' };
  for (const [name, dir] of [['XDG_CONFIG_HOME', '.config'], ['XDG_CACHE_HOME', '.cache'], ['XDG_DATA_HOME', '.local/share'], ['XDG_STATE_HOME', '.local/state'], ['CLAUDE_CONFIG_DIR', '.claude']]) {
    env[name] = join(home, dir);
    mkdirSync(env[name], { recursive: true });
  }
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_AUTH_TOKEN: gw.key,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', // without it, also HEAD /api/hello (a 404 it ignores)
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    NO_PROXY: '127.0.0.1',
    no_proxy: '127.0.0.1',
  };
}

// One `claude -p` session; on timeout the whole process group is killed.
function runClaude(home, baseUrl, prompt) {
  return new Promise((resolve) => {
    const child = spawn(claudeBin, ['-p', prompt], { cwd: home, env: claudeEnv(home, baseUrl), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${RUN_TIMEOUT_MS} ms]`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, RUN_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

// The blocks of a Messages request in wire order: tools, system blocks, message content blocks.
const blocksOf = (body) => {
  const blocks = [...(body.tools ?? []), ...(Array.isArray(body.system) ? body.system : [])];
  for (const message of body.messages ?? []) if (Array.isArray(message.content)) blocks.push(...message.content);
  return blocks;
};
const markersOf = (body) => blocksOf(body).filter((block) => block.cache_control).length;
// What each marked block says (its text, or a tool's name), to find it again upstream.
const markedTexts = (body) => blocksOf(body).filter((block) => block.cache_control).map((block) => block.text ?? block.name ?? JSON.stringify(block));

test('claude -p twice through cilia: the second session upstream holds what the first said, cache markers kept and at most four', async (t) => {
  if (gw.skip) return t.skip(gw.skip);
  if (!existsSync(claudeBin)) return t.skip(`no Claude Code CLI at ${claudeBin} (npm ci in tests/e2e)`);
  recorder = await startRecorder(gw.url);
  const home = mkdtempSync(join(tmpdir(), 'cilia-claude-'));
  homes.push(home);
  const pet = `Pixel${uniqueId('x').slice(2)}`;
  const fact = `Remember this: my cat is called ${pet}.`;
  const question = 'What is my cat called?';
  // The question's rule first: the second session's requests hold the fact too (the point).
  await gw.upstream.script([
    { match: question, reply: 'Let me think.' },
    { match: `my cat is called ${pet}`, reply: `Noted, ${pet}.` },
  ]);

  const first = await runClaude(home, recorder.url, fact);
  t.diagnostic(`first session: exit ${first.code}; stdout ${first.stdout.slice(-300)}; stderr ${first.stderr.slice(-300)}`);
  assert.equal(first.code, 0, `first session: ${first.stdout.slice(-1000)} ${first.stderr.slice(-2000)}`);
  assert.match(first.stdout, new RegExp(`Noted, ${pet}`), first.stdout);
  assert.ok((await waitUntilSearchable(gw, pet, pet)).length, 'the first session is in the archive');
  // Claude Code begins the turn with its <system-reminder> blocks: kept, but the title is the owner's.
  const conversations = await gw.api('/v1/conversations?limit=100');
  assert.equal(conversations.status, 200, conversations.text);
  const titles = conversations.json.conversations.map((c) => c.title);
  assert.ok(titles.includes(fact), JSON.stringify(titles));

  const second = await runClaude(home, recorder.url, question);
  t.diagnostic(`second session: exit ${second.code}; stdout ${second.stdout.slice(-300)}`);
  assert.equal(second.code, 0, `second session: ${second.stdout.slice(-1000)} ${second.stderr.slice(-2000)}`);
  assert.match(second.stdout, /Let me think\./);
  const calls = recorder.seen.map(({ call, status }) => `${call} ${status}`);
  t.diagnostic(`Claude Code called: ${[...new Set(calls)].join(', ')}`);

  const requests = await gw.upstream.requests();
  t.diagnostic(`upstream got ${requests.length} requests: ${requests.map((r) => `${r.path} ${r.body.model} markers=${markersOf(r.body)}`).join('; ')}`);
  const messages = requests.filter((r) => r.path === '/v1/messages');
  const asked = messages.filter((r) => rawLastUserText(r.body).includes(question) && (r.body.tools ?? []).length);
  assert.ok(asked.length >= 1, 'the second session main turn reached the upstream through cilia');
  const memory = `${turnContextOf(asked[0].body) ?? ''}\n${systemTextOf(asked[0].body)}`;
  assert.ok(memory.includes(pet), `the second session upstream request holds the first session fact in cilia's memory: ${memory.slice(0, 2000)}`);

  // Claude Code marks blocks of its own (system prompt parts, the last message) for caching;
  // every one reaches the upstream marked, beside cilia's, and no request carries more than
  // the four the Messages API allows.
  const told = messages.filter((r) => rawLastUserText(r.body).includes(fact) && (r.body.tools ?? []).length);
  assert.ok(told.length >= 1, 'the first session main turn reached the upstream');
  const clientBodies = recorder.seen.filter(({ call }) => call === 'POST /v1/messages').map(({ body }) => JSON.parse(body));
  const clientMarked = clientBodies.flatMap(markedTexts);
  assert.ok(clientMarked.length >= 2, `Claude Code sent cache markers of its own: ${clientMarked.length}`);
  const upstreamMarked = new Set(messages.flatMap((r) => markedTexts(r.body)));
  for (const text of clientMarked) assert.ok(upstreamMarked.has(text), `Claude Code's marker kept on: ${text.slice(0, 200)}`);
  for (const r of messages) assert.ok(markersOf(r.body) <= 4, `${markersOf(r.body)} cache_control markers in one upstream request`);
  // Every call Claude Code made to cilia's Messages routes was answered (token counts and any
  // background call included; Claude Code 2.1.332 in -p makes none of those here).
  for (const { call, status } of recorder.seen.filter(({ call }) => call.startsWith('POST /v1/messages'))) assert.equal(status, 200, `${call} answered ${status}`);
});

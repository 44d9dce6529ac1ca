// The chat gateway under test: the scripted fake upstream, a cilia server routed to it, and
// readers for what the upstream received. No npm packages here (the benchmarks use it too);
// the SDK clients are in clients.mjs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { binaryExists, ciliaBin, repoRoot, request, startServer } from './server.mjs';

const fakeUpstreamPath = join(repoRoot, 'tests', 'e2e', 'fake-upstream', 'server.mjs');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The routed models of every gateway config below.
export const MODELS = {
  openai: 'oai/gpt-fake',
  anthropic: 'anth/claude-fake',
  responses: 'resp/gpt-fake-responses',
  extract: 'oai/gpt-fake-mini',
  vision: 'oai/vision-fake',
};
export const ALIASES = { 'gpt-4o-mini': 'oai/gpt-fake-mini', 'claude-haiku-4-5': 'anth/claude-fake-mini' };
// The provider's idle timeout: a stream silent for longer is broken off.
export const IDLE_TIMEOUT_MS = 1500;
// A non-streaming answer that has not begun by then is a timeout.
export const FIRST_BYTE_TIMEOUT_MS = 3000;

export const uniqueId = (prefix) => `${prefix}-${randomBytes(4).toString('hex')}`;

// Starts tests/e2e/fake-upstream/server.mjs on a free loopback port.
export async function startFakeUpstream() {
  const proc = spawn(process.execPath, [fakeUpstreamPath, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolvePort, reject) => {
    let seen = '';
    proc.stdout.on('data', (data) => {
      seen += data;
      const match = /listening (\d+)/.exec(seen);
      if (match) resolvePort(Number(match[1]));
    });
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`fake upstream exited with ${code}`)));
  });
  // Not left behind when this process ends without stop() (a crash, process.exit()).
  const killOnExit = () => proc.kill();
  process.once('exit', killOnExit);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    // [{path, headers, body, closed_early}] since the last reset
    requests: async () => (await request(url, '/_requests')).json,
    reset: () => request(url, '/_reset', { method: 'POST' }),
    // Scripted answers: [{match, reply, times?}] (fake-upstream/README.md, POST /_script).
    script: async (rules) => {
      const reply = await request(url, '/_script', { method: 'POST', body: { rules } });
      if (reply.status !== 200) throw new Error(`fake upstream refused the script: ${reply.text}`);
    },
    stop: () =>
      new Promise((resolveStop) => {
        process.removeListener('exit', killOnExit);
        if (proc.exitCode !== null || proc.signalCode !== null) return resolveStop();
        proc.once('exit', () => resolveStop());
        proc.kill();
      }),
  };
}

// TOML for a cilia whose providers, "oai" (kind openai), "resp" (kind openai, wire_api
// responses) and "anth" (kind anthropic), are the fake upstream. `chat` is models.chat;
// `features` sets [features] keys; `aliases` are added to ALIASES, `models` sets further
// [models] keys (e.g. fallback), `gateway` sets [gateway] keys (values written as JSON, which
// for strings, numbers, booleans and arrays of them is TOML too), and `providers`
// ([{name, kind, path}]) adds providers whose base_url is the fake's URL plus `path` ("" for a
// base without /v1).
export function gatewayConfig({ upstreamUrl, chat = MODELS.openai, features = {}, aliases: moreAliases = {}, models = {}, gateway = {}, providers = [] }) {
  const provider = (name, kind, wireApi = 'chat', path = '/v1') => [
    '[[providers]]',
    `name = "${name}"`,
    `kind = "${kind}"`,
    `wire_api = "${wireApi}"`,
    `base_url = "${upstreamUrl}${path}"`,
    'api_key = "fake-key"',
    `idle_timeout_ms = ${IDLE_TIMEOUT_MS}`,
    `first_byte_timeout_ms = ${FIRST_BYTE_TIMEOUT_MS}`,
    '',
  ];
  const aliases = Object.entries({ ...ALIASES, ...moreAliases }).map(([alias, target]) => `"${alias}" = "${target}"`).join(', ');
  const lines = [
    ...provider('oai', 'openai'),
    ...provider('resp', 'openai', 'responses'),
    ...provider('anth', 'anthropic'),
    ...providers.flatMap((p) => provider(p.name, p.kind, 'chat', p.path)),
    '[models]',
    'public_name = "companion"',
    `chat = "${chat}"`,
    `extract = "${MODELS.extract}"`,
    `vision = "${MODELS.vision}"`,
    `aliases = { ${aliases} }`,
    ...Object.entries(models).map(([key, value]) => `${key} = "${value}"`),
    '',
  ];
  if (Object.keys(features).length) {
    lines.push('[features]', ...Object.entries(features).map(([name, on]) => `${name} = ${on}`), '');
  }
  if (Object.keys(gateway).length) {
    lines.push('[gateway]', ...Object.entries(gateway).map(([name, value]) => `${name} = ${JSON.stringify(value)}`), '');
  }
  return lines.join('\n');
}

// Starts a fake upstream (unless one is given) and cilia routed to it.
// Returns {server, upstream, url, key, api, stop}.
export async function startGateway({ chat, features, aliases, models, gateway, providers, upstream, dataDir, env = {}, startTimeoutMs } = {}) {
  const ownsUpstream = !upstream;
  const fake = upstream ?? (await startFakeUpstream());
  try {
    const server = await startServer({
      dataDir,
      startTimeoutMs,
      config: gatewayConfig({ upstreamUrl: fake.url, chat, features, aliases, models, gateway, providers }),
      // cilia reads the usual proxy variables; the fake is on loopback, never behind one
      env: { NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...env },
    });
    return {
      server,
      upstream: fake,
      url: server.url,
      key: server.key,
      api: server.api,
      async stop() {
        await server.stop();
        if (ownsUpstream) await fake.stop();
      },
    };
  } catch (error) {
    if (ownsUpstream) await fake.stop();
    throw error;
  }
}

// Why the gateway tests cannot run against this build, or null when they can: no binary, or a
// binary whose GET /v1/models does not answer 200 (the chat routes are not in it yet).
async function unavailableReason(gateway) {
  const models = await gateway.api('/v1/models');
  if (models.status === 200) return null;
  return `the chat routes are not in ${ciliaBin} yet (GET /v1/models answered ${models.status})`;
}

// For a test file's top level: `const gw = await openGateway({...})` gives either a running
// gateway or {skip: reason}; tests then begin with `if (gw.skip) return t.skip(gw.skip)`.
// The gateway is stopped by `gw.stop()` (harmless on a skipped one).
export async function openGateway(options = {}) {
  if (!binaryExists()) return { skip: `no cilia binary at ${ciliaBin} (build it, or set CILIA_BIN)`, stop: async () => {} };
  const gateway = await startGateway(options);
  const reason = await unavailableReason(gateway);
  if (reason) {
    await gateway.stop();
    return { skip: reason, stop: async () => {} };
  }
  return gateway;
}

// ---- reading what the upstream received -----------------------------------------------

// The text of one message's content (a string, OpenAI parts or Anthropic blocks).
export function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part && part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

const TURN_CONTEXT = /<turn_context>[\s\S]*?<\/turn_context>/g;

// The text of the last user message that has some, as it is on the wire (turn context included).
export function rawLastUserText(body) {
  return lastUserTextWhere(body, (text) => text);
}

// The client's text of the last user message that has some, without cilia's turn context: what
// the fake upstream reads directives from (a tool-result turn that only carries the turn
// context is skipped).
export function lastUserText(body) {
  return lastUserTextWhere(body, (text) => text.replace(TURN_CONTEXT, '').trim());
}

function lastUserTextWhere(body, clean) {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const text = clean(textOf(messages[i].content));
    if (text) return text;
  }
  return '';
}

// The `<turn_context>…</turn_context>` block of the last user message with text, or null.
export function turnContextOf(body) {
  return rawLastUserText(body).match(TURN_CONTEXT)?.[0] ?? null;
}

// All system text: Anthropic's `system` (string or blocks), or OpenAI's system/developer messages.
export function systemTextOf(body) {
  if (body.system !== undefined) return textOf(body.system);
  return (body.messages ?? [])
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
}

// Tool names in wire order, for either format.
export const toolNamesOf = (body) => (body.tools ?? []).map((tool) => tool.function?.name ?? tool.name);

// The upstream's requests whose last user text contains `marker`, waiting up to `timeoutMs`
// for at least `count` of them (recall rounds and retries make several).
export async function upstreamRequestsWith(upstream, marker, { count = 1, timeoutMs = 5_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await upstream.requests()).filter((r) => lastUserText(r.body).includes(marker));
    if (found.length >= count || Date.now() > deadline) return found;
    await sleep(50);
  }
}

// Polls POST /v1/search until a result's text contains `text` (the archive indexes turns after
// they are answered). Returns the results, or [] on timeout.
export async function waitUntilSearchable(gateway, query, text, { timeoutMs = 15_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await gateway.api('/v1/search', { body: { query, limit: 10 } });
    const results = reply.json?.results ?? [];
    if (results.some((r) => r.text.includes(text))) return results;
    if (Date.now() > deadline) return [];
    await sleep(100);
  }
}

// The stored messages of a conversation, in order (GET /v1/conversations/{id}/messages).
export async function storedMessages(gateway, conversationId) {
  const reply = await gateway.api(`/v1/conversations/${encodeURIComponent(conversationId)}/messages?limit=1000`);
  if (reply.status === 404) return [];
  if (reply.status !== 200) throw new Error(`GET messages of ${conversationId}: ${reply.status} ${reply.text}`);
  return reply.json.messages;
}

// A 1×1 PNG, as tests send images.
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
export const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

// Whether an upstream request carries that image, in either wire format.
export function carriesImage(body, base64 = PNG_BASE64) {
  return (body.messages ?? []).some(
    (m) =>
      Array.isArray(m.content) &&
      m.content.some((part) => part.image_url?.url?.includes(base64) || part.source?.data === base64),
  );
}

// ---- raw SSE, for tests and benchmarks that time bytes -----------------------------------

// The events of an SSE response body as they arrive: {event, data} (data parsed unless it is
// [DONE] or not JSON). Comments (": keep-alive") are skipped.
export async function* sseEvents(response) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(buffer.slice(end).match(/^\r?\n\r?\n/)[0].length + end);
      const lines = frame.split(/\r?\n/);
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? null;
      const dataLines = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
      if (!dataLines.length) continue;
      const raw = dataLines.join('\n');
      let data = raw;
      if (raw !== '[DONE]') {
        try {
          data = JSON.parse(raw);
        } catch {
          // left as text
        }
      }
      yield { event, data };
    }
  }
}

// ---- both upstream kinds -----------------------------------------------------------------

// What each kind of upstream looks like from the fake's side.
export const UPSTREAMS = {
  openai: { chat: MODELS.openai, path: '/v1/chat/completions', model: 'gpt-fake', toolCallId: /^call_fake_\d+$/ },
  anthropic: { chat: MODELS.anthropic, path: '/v1/messages', model: 'claude-fake', toolCallId: /^toolu_fake_\d+$/ },
};

// An OpenAI-compatible upstream spoken to with the Responses API (wire_api = "responses").
export const RESPONSES_UPSTREAM = { chat: MODELS.responses, path: '/v1/responses', model: 'gpt-fake-responses', toolCallId: /^call_fake_\d+$/ };

// One gateway per upstream kind, models.chat routed to it: {openai, anthropic} (or the kinds
// given), each from openGateway (so possibly {skip}). `options` go to every one.
export async function openGateways(options = {}, upstreams = UPSTREAMS) {
  const entries = [];
  for (const [kind, upstream] of Object.entries(upstreams)) {
    entries.push([kind, await openGateway({ ...options, chat: upstream.chat })]);
  }
  const gateways = Object.fromEntries(entries);
  gateways.stopAll = () => Promise.all(entries.map(([, gateway]) => gateway.stop()));
  return gateways;
}

// The tool results an upstream request sends back, in either format: [{id, text}].
export function toolResultsOf(body) {
  const results = [];
  for (const message of body.messages ?? []) {
    if (message.role === 'tool') results.push({ id: message.tool_call_id, text: textOf(message.content) });
    if (message.role === 'user' && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type === 'tool_result') results.push({ id: block.tool_use_id, text: textOf(block.content) });
      }
    }
  }
  return results;
}

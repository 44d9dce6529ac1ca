#!/usr/bin/env node
// The chat gateway under load, against the scripted fake upstream (tests/e2e/fake-upstream):
// (1) cilia's own time-to-first-byte overhead, streaming with memory on, over an archive of
// --windows windows; (2) --streams concurrent streams held with no errors; (3) the share of
// input tokens served from the prompt cache over a --cache-turns conversation, Anthropic
// (the target) and OpenAI (for information); (4) the tokens cilia adds to each turn (the
// per-turn block, its menu, the stable memory blocks, the recall tool) over zh-dev and
// distractors, read from what the fake upstream receives. Prints Markdown; writes
// bench/results/gateway-*.json.
// See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { MODELS, startFakeUpstream, startGateway } from '../tests/e2e/lib/gateway.mjs';
import { makeTempDir, removeDir, repoRoot } from '../tests/e2e/lib/server.mjs';
import { ingestAll } from './lib/cilia.mjs';
import { zhDevUnit } from './lib/datasets.mjs';
import { growArchive } from './lib/grow.mjs';
import { synthConversations } from './lib/synth.mjs';
import { estimateTokens } from './lib/tokens.mjs';

const CORPUS_START = '2024-06-01T00:00:00Z';
const CORPUS_END = '2026-06-01T00:00:00Z';
const WARMUP_TURNS = 20;
const OVERHEAD_CONVERSATIONS = 10; // turns go round these, each carrying its growing history
const TARGETS = { overhead_p50_ms: 10, stream_errors: 0, anthropic_cache_share: 0.9 };

const { values: opts } = parseArgs({
  options: {
    windows: { type: 'string', default: '100000' },
    turns: { type: 'string', default: '200' },
    streams: { type: 'string', default: '200' },
    'stream-slow-ms': { type: 'string', default: '50' },
    'stream-words': { type: 'string', default: '60' },
    'stream-ramp-ms': { type: 'string', default: '1000' },
    'cache-turns': { type: 'string', default: '50' },
    'token-distractors': { type: 'string', default: '3000' },
    'token-conversations': { type: 'string', default: '4' },
    parts: { type: 'string', default: 'overhead,streams,cache,tokens' },
    data: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});

const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
};
const log = (message) => console.error(message);

// Every request of this benchmark goes through one keep-alive pool per host, as a chat client's.
const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

// POSTs JSON and times the reply: {status, started_at, ended_at (performance.now() times),
// ttfb_ms (to the first body byte), total_ms, text}.
function timedPost(baseUrl, path, body, headers = {}) {
  const url = new URL(path, baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        let first = null;
        const chunks = [];
        res.on('data', (chunk) => {
          first ??= performance.now();
          chunks.push(chunk);
        });
        res.on('end', () => {
          const now = performance.now();
          resolve({ status: res.statusCode, started_at: started, ended_at: now, ttfb_ms: (first ?? now) - started, total_ms: now - started, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// The data of each SSE frame of a whole body (parsed JSON, or the raw text such as [DONE]).
function sseData(text) {
  return text
    .split(/\r?\n\r?\n/)
    .map((frame) => frame.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'))
    .filter(Boolean)
    .map((data) => {
      try {
        return JSON.parse(data);
      } catch {
        return data;
      }
    });
}

// What was wrong with an OpenAI stream, or null: not 200, an error chunk, no [DONE], other text.
function streamProblem(reply, expectedText) {
  if (reply.status !== 200) return `status ${reply.status}: ${reply.text.slice(0, 200)}`;
  const events = sseData(reply.text);
  const error = events.find((e) => e && typeof e === 'object' && e.error);
  if (error) return `error event: ${JSON.stringify(error.error).slice(0, 200)}`;
  if (events.at(-1) !== '[DONE]') return 'no [DONE] at the end';
  const text = events.map((e) => e?.choices?.[0]?.delta?.content ?? '').join('');
  if (expectedText !== undefined && text !== expectedText) return `text ${JSON.stringify(text.slice(0, 80))}`;
  return null;
}

// User turns that sound like the archive (same generator, another seed), so the menu has work.
function* userTexts(seed) {
  for (const conversation of synthConversations({ seed: `gateway-turns:${seed}`, messages: Infinity, start: CORPUS_START, end: CORPUS_END })) {
    for (const message of conversation.messages) yield message.content;
  }
}

// (1) Paired turns: the same client request straight to the fake, then through cilia.
async function measureOverhead(gateway, upstream, turns) {
  const texts = userTexts(opts.seed);
  const histories = Array.from({ length: OVERHEAD_CONVERSATIONS }, () => []);
  const direct = [];
  const through = [];
  const overhead = [];
  const reply = 'Okay, noted.';
  for (let i = 0; i < turns + WARMUP_TURNS; i++) {
    const k = i % OVERHEAD_CONVERSATIONS;
    const history = histories[k];
    const messages = [...history, { role: 'user', content: `${texts.next().value} [[reply:${reply}]]` }];
    const body = { model: 'companion', stream: true, messages };
    const straight = await timedPost(upstream.url, '/v1/chat/completions', { ...body, model: 'gpt-fake' });
    const routed = await timedPost(gateway.url, '/v1/chat/completions', body, {
      authorization: `Bearer ${gateway.key}`,
      'x-cilia-conversation': `bench-gateway-${opts.seed}-${k}`,
    });
    const problem = streamProblem(routed, reply);
    if (problem) throw new Error(`turn ${i} through cilia: ${problem}`);
    history.push(messages.at(-1), { role: 'assistant', content: reply });
    if (i < WARMUP_TURNS) continue;
    direct.push(straight.ttfb_ms);
    through.push(routed.ttfb_ms);
    overhead.push(routed.ttfb_ms - straight.ttfb_ms);
  }
  return { turns, warmup_turns: WARMUP_TURNS, conversations: OVERHEAD_CONVERSATIONS, overhead_ms: stats(overhead), direct_ttfb_ms: stats(direct), cilia_ttfb_ms: stats(through) };
}

// The most streams open at one moment.
function peakOpen(outcomes) {
  const edges = outcomes.flatMap((o) => [[o.started_at, 1], [o.ended_at, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step));
  return peak;
}

// (2) `count` streams, started evenly over `rampMs` (0: all at once), each `words` words with
// `slowMs` between events, so that they are all open together at the peak.
async function measureStreams(gateway, { count, slowMs, words, rampMs }) {
  const reply = Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (rampMs * i) / count));
      const sentAt = performance.now();
      return timedPost(
        gateway.url,
        '/v1/chat/completions',
        { model: 'companion', stream: true, messages: [{ role: 'user', content: `stream ${i} of the load test [[slow:${slowMs}]] [[reply:${reply}]]` }] },
        { authorization: `Bearer ${gateway.key}`, 'x-cilia-conversation': `bench-streams-${opts.seed}-${i}` },
      ).then(
        (r) => ({ ...r, problem: streamProblem(r, reply) }),
        (error) => ({ problem: `transport: ${error.message}`, started_at: sentAt, ended_at: performance.now() }),
      );
    }),
  );
  const wall = performance.now() - started;
  const failed = outcomes.filter((o) => o.problem);
  const ok = outcomes.filter((o) => !o.problem);
  return {
    streams: count,
    slow_ms: slowMs,
    words,
    ramp_ms: rampMs,
    peak_open: peakOpen(outcomes),
    peak_open_ok: peakOpen(ok),
    errors: failed.length,
    error_samples: [...new Set(failed.map((o) => o.problem))].slice(0, 5),
    wall_ms: wall,
    ttfb_ms: ok.length ? stats(ok.map((o) => o.ttfb_ms)) : null,
    total_ms: ok.length ? stats(ok.map((o) => o.total_ms)) : null,
  };
}

// A companion app's character card: a long, stable system prompt, as such clients send.
const SYSTEM_PROMPT = [
  'You are Juniper, a warm and attentive companion. You remember what the user tells you and bring it up when it matters.',
  ...Array.from({ length: 40 }, (_, i) => `Rule ${i + 1}: keep answers short, kind and concrete; ask at most one question; never invent memories; note ${i} of the style guide.`),
].join('\n');

// (3) One conversation of `turns` user turns, the whole history sent each time, as chat apps
// do. Share = cache reads / all input tokens, from the usage the fake upstream reports.
async function measureCache(gateway, upstream, format, turns) {
  await upstream.reset();
  const texts = userTexts(`${opts.seed}-cache-${format}`);
  const conversation = `bench-cache-${format}-${opts.seed}-${Date.now().toString(36)}`;
  const history = [];
  const perTurn = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push({ role: 'user', content: texts.next().value });
    const headers = { authorization: `Bearer ${gateway.key}`, 'x-cilia-conversation': conversation };
    let usage;
    let answer;
    if (format === 'anthropic') {
      const reply = await timedPost(gateway.url, '/v1/messages', { model: 'companion', max_tokens: 512, system: SYSTEM_PROMPT, messages: history }, headers);
      if (reply.status !== 200) throw new Error(`cache turn ${turn}: ${reply.status} ${reply.text.slice(0, 300)}`);
      const message = JSON.parse(reply.text);
      answer = message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      const u = message.usage;
      usage = { input: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens, cache_read: u.cache_read_input_tokens, cache_write: u.cache_creation_input_tokens };
    } else {
      const body = { model: 'companion', messages: [{ role: 'system', content: SYSTEM_PROMPT }, ...history] };
      const reply = await timedPost(gateway.url, '/v1/chat/completions', body, headers);
      if (reply.status !== 200) throw new Error(`cache turn ${turn}: ${reply.status} ${reply.text.slice(0, 300)}`);
      const completion = JSON.parse(reply.text);
      answer = completion.choices[0].message.content ?? '';
      const u = completion.usage;
      usage = { input: u.prompt_tokens, cache_read: u.prompt_tokens_details?.cached_tokens ?? 0, cache_write: 0 };
    }
    history.push({ role: 'assistant', content: answer });
    perTurn.push(usage);
  }
  const sum = (field, from = 0) => perTurn.slice(from).reduce((s, u) => s + u[field], 0);
  // Whether cilia's memory was in the prompts at all (else the share would flatter it).
  const requests = await upstream.requests();
  const withMemory = requests.filter((r) => JSON.stringify(r.body).includes('<turn_context>')).length;
  return {
    format,
    turns,
    system_prompt_chars: SYSTEM_PROMPT.length,
    input_tokens: sum('input'),
    cache_read_tokens: sum('cache_read'),
    cache_write_tokens: sum('cache_write'),
    share: sum('cache_read') / sum('input'),
    share_after_first_turn: sum('cache_read', 1) / sum('input', 1),
    upstream_requests: requests.length,
    upstream_requests_with_turn_context: withMemory,
    per_turn: perTurn,
  };
}

// The owner's side of a lived-in archive: a profile and a few precious passages.
const TOKEN_PROFILE = {
  persona: '# 人设\n你是小满，温和、简短、说话带一点幽默。记得用户说过的事，合适的时候自然地提起。',
  user: '# 关于用户\n住在成都，做产品经理，周末跑步（目标是半马进 1 小时 50 分）。养了一只叫糯米的猫。妹妹在杭州读研。',
  rules: '# 规矩\n不要说教；用户难过时先听再说；不确定的记忆先问一句。',
};
const TOKEN_CLIENT_SYSTEM = 'You are a helpful companion. Answer in the user\'s language.';

// (4) zh-dev's questions asked as user turns, round-robin over `conversations` conversations
// whose history grows as a chat app sends it, with zh-dev and `distractors` synthetic messages
// in the archive, a profile and three precious passages. Per upstream request, in cilia's own
// token estimate: the <turn_context> block (clock, glossary hits, menu), the menu alone, and
// cilia's part of the system text (guide, profile, precious passages; pack and summary when
// there are any); the recall tool's definition once.
async function measureTokens(gateway, upstream, { distractors, conversations }) {
  const unit = zhDevUnit();
  await ingestAll(gateway, unit.conversations);
  const noise = [];
  let count = 0;
  for (const conversation of synthConversations({ seed: `tokens:${opts.seed}`, messages: Infinity, start: CORPUS_START, end: CORPUS_END, idPrefix: 'tokens-noise' })) {
    if (count >= distractors) break;
    noise.push(conversation);
    count += conversation.messages.length;
  }
  await ingestAll(gateway, noise);
  for (const [name, content] of Object.entries(TOKEN_PROFILE)) {
    const put = await gateway.api(`/v1/profile/${name}`, { method: 'PUT', body: { content } });
    if (put.status !== 200) throw new Error(`PUT profile ${name}: ${put.status} ${put.text}`);
  }
  for (const conversation of unit.conversations.slice(0, 3)) {
    const said = conversation.messages.find((m) => m.role === 'user');
    const pin = await gateway.api('/v1/precious', { body: { conversation_id: conversation.conversation_id, message_ids: [said.id] } });
    if (pin.status !== 201) throw new Error(`pin: ${pin.status} ${pin.text}`);
  }
  await upstream.reset();
  const histories = Array.from({ length: conversations }, () => []);
  const tag = `tokens-${opts.seed}-${Date.now().toString(36)}`;
  for (const [i, q] of unit.questions.entries()) {
    const history = histories[i % conversations];
    history.push({ role: 'user', content: q.question });
    const body = { model: 'companion', messages: [{ role: 'system', content: TOKEN_CLIENT_SYSTEM }, ...history] };
    const reply = await timedPost(gateway.url, '/v1/chat/completions', body, { authorization: `Bearer ${gateway.key}`, 'x-cilia-conversation': `${tag}-${i % conversations}` });
    if (reply.status !== 200) throw new Error(`token turn ${i}: ${reply.status} ${reply.text.slice(0, 300)}`);
    history.push({ role: 'assistant', content: JSON.parse(reply.text).choices[0].message.content ?? '' });
  }
  const perTurn = [];
  let recallTool = 0;
  for (const { body } of await upstream.requests()) {
    const system = body.messages[0].content;
    const last = body.messages.at(-1).content;
    const context = (typeof last === 'string' ? last : JSON.stringify(last)).match(/<turn_context>[\s\S]*?<\/turn_context>/)?.[0] ?? '';
    const menuAt = context.indexOf('Possibly relevant memories');
    const menu = menuAt < 0 ? '' : context.slice(menuAt, context.lastIndexOf('\n</turn_context>'));
    recallTool = estimateTokens(JSON.stringify(body.tools?.find((t) => t.function?.name === 'recall') ?? ''));
    perTurn.push({
      turn_context: estimateTokens(context),
      menu: estimateTokens(menu),
      menu_lines: menu ? menu.split('\n').length - 1 : 0,
      stable: estimateTokens(system.slice(TOKEN_CLIENT_SYSTEM.length)),
    });
  }
  const of = (field) => stats(perTurn.map((t) => t[field]));
  return {
    turns: perTurn.length,
    conversations,
    archive_messages: unit.conversations.reduce((n, c) => n + c.messages.length, 0) + count,
    turns_with_menu: perTurn.filter((t) => t.menu > 0).length,
    turn_context_tokens: of('turn_context'),
    menu_tokens: of('menu'),
    menu_lines: of('menu_lines'),
    stable_tokens: of('stable'),
    recall_tool_tokens: recallTool,
    per_turn: perTurn,
  };
}

async function cacheStats(gateway) {
  const reply = await fetch(`${gateway.url}/v1/stats/cache`, { headers: { authorization: `Bearer ${gateway.key}` } });
  return reply.status === 200 ? reply.json() : { status: reply.status };
}

function markdown(report) {
  const ms = (x) => (x === undefined || x === null || Number.isNaN(x) ? '–' : x.toFixed(2));
  const pct = (x) => (x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);
  const lines = ['## gateway', '', '| measure | value | target |', '|---|---|---|'];
  const o = report.overhead;
  if (o) {
    lines.push(`| TTFB overhead through cilia, p50 / p99 (${o.turns} turns, ${report.archive.windows} windows) | ${ms(o.overhead_ms.p50)} / ${ms(o.overhead_ms.p99)} ms | p50 ≤ ${TARGETS.overhead_p50_ms} ms |`);
    lines.push(`| TTFB direct to the fake, p50 / p99 | ${ms(o.direct_ttfb_ms.p50)} / ${ms(o.direct_ttfb_ms.p99)} ms | |`);
    lines.push(`| TTFB through cilia, p50 / p99 | ${ms(o.cilia_ttfb_ms.p50)} / ${ms(o.cilia_ttfb_ms.p99)} ms | |`);
  }
  const s = report.streams;
  if (s) {
    lines.push(`| concurrent streams (${s.streams} started over ${s.ramp_ms} ms, ${s.words} words, slow ${s.slow_ms} ms): errors | ${s.errors} of ${s.streams} | ${TARGETS.stream_errors} |`);
    lines.push(`| … most open at once (all / without errors) | ${s.peak_open} / ${s.peak_open_ok} | ${s.streams} |`);
    lines.push(`| … wall time; TTFB p50 / p99; total p50 / p99 | ${(s.wall_ms / 1000).toFixed(1)} s; ${ms(s.ttfb_ms?.p50)} / ${ms(s.ttfb_ms?.p99)} ms; ${ms(s.total_ms?.p50)} / ${ms(s.total_ms?.p99)} ms | |`);
  }
  for (const c of report.cache ?? []) {
    const target = c.format === 'anthropic' ? `≥ ${pct(TARGETS.anthropic_cache_share)}` : '(information)';
    lines.push(`| cache hit share of input tokens, ${c.format}, ${c.turns} turns (after turn 1) | ${pct(c.share)} (${pct(c.share_after_first_turn)}) | ${target} |`);
  }
  const t = report.tokens;
  if (t) {
    const pm = (s) => `${s.p50} / ${s.max}`;
    lines.push(`| tokens cilia adds per turn, p50 / max (${t.turns} turns, ${t.archive_messages} messages): the turn context | ${pm(t.turn_context_tokens)} | |`);
    lines.push(`| … of which the menu (${t.turns_with_menu} turns with one; lines p50 / max ${pm(t.menu_lines)}) | ${pm(t.menu_tokens)} | |`);
    lines.push(`| … stable memory blocks (guide, profile, precious; cached) | ${pm(t.stable_tokens)} | |`);
    lines.push(`| … the recall tool's definition (cached) | ${t.recall_tool_tokens} | |`);
  }
  if (report.cache?.some((c) => c.upstream_requests_with_turn_context === 0)) lines.push('', 'warning: no upstream request of the cache run carried a <turn_context>: memory was not in the prompts.');
  return lines.join('\n');
}

async function main() {
  const parts = new Set(opts.parts.split(','));
  const ownsData = !opts.data;
  const dataDir = opts.data ?? (await makeTempDir('cilia-bench-gateway-'));
  if (!ownsData) mkdirSync(dataDir, { recursive: true });
  const upstream = await startFakeUpstream();
  const report = { generated_at: new Date().toISOString(), seed: opts.seed, data_dir: ownsData ? null : dataDir };
  try {
    // Phase A: models.chat on the OpenAI-compatible provider.
    let gateway = await startGateway({ upstream, dataDir, chat: MODELS.openai, startTimeoutMs: 300_000 });
    try {
      if (parts.has('overhead')) {
        const target = Number(opts.windows);
        log(`growing the archive to ${target} windows${ownsData ? '' : ` in ${dataDir}`}`);
        report.archive = await growArchive(gateway, { target, seed: opts.seed, start: CORPUS_START, end: CORPUS_END, log });
        log(`${report.archive.windows} windows; ${opts.turns} paired turns`);
        await upstream.reset();
        report.overhead = await measureOverhead(gateway, upstream, Number(opts.turns));
      }
      if (parts.has('streams')) {
        await upstream.reset();
        log(`${opts.streams} concurrent streams`);
        report.streams = await measureStreams(gateway, {
          count: Number(opts.streams),
          slowMs: Number(opts['stream-slow-ms']),
          words: Number(opts['stream-words']),
          rampMs: Number(opts['stream-ramp-ms']),
        });
      }
      if (parts.has('tokens')) {
        log(`tokens: zh-dev and ${opts['token-distractors']} distractor messages`);
        report.tokens = await measureTokens(gateway, upstream, { distractors: Number(opts['token-distractors']), conversations: Number(opts['token-conversations']) });
      }
      if (parts.has('cache')) {
        log(`cache: ${opts['cache-turns']} OpenAI turns`);
        report.cache = [await measureCache(gateway, upstream, 'openai', Number(opts['cache-turns']))];
      }
    } finally {
      await gateway.stop();
    }
    // Phase B: the same data dir, models.chat on the Anthropic provider.
    if (parts.has('cache')) {
      gateway = await startGateway({ upstream, dataDir, chat: MODELS.anthropic, startTimeoutMs: 300_000 });
      try {
        log(`cache: ${opts['cache-turns']} Anthropic turns`);
        report.cache.unshift(await measureCache(gateway, upstream, 'anthropic', Number(opts['cache-turns'])));
        report.cilia_cache_stats = await cacheStats(gateway);
      } finally {
        await gateway.stop();
      }
    }
  } finally {
    agent.destroy();
    await upstream.stop();
    if (ownsData) await removeDir(dataDir);
  }

  console.log(markdown(report));
  mkdirSync(opts.out, { recursive: true });
  const files = {
    'gateway-overhead.json': report.overhead && { generated_at: report.generated_at, archive: report.archive, ...report.overhead },
    'gateway-streams.json': report.streams && { generated_at: report.generated_at, ...report.streams },
    'gateway-cache.json': report.cache && { generated_at: report.generated_at, runs: report.cache, cilia_cache_stats: report.cilia_cache_stats },
    'gateway-tokens.json': report.tokens && { generated_at: report.generated_at, ...report.tokens },
  };
  for (const [name, content] of Object.entries(files)) {
    if (!content) continue;
    writeFileSync(join(opts.out, name), JSON.stringify(content, null, 1) + '\n');
    log(`wrote ${join(opts.out, name)}`);
  }
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});

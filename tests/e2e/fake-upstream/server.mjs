// A scripted fake chat upstream for cilia's tests: OpenAI Chat Completions on
// /v1/chat/completions, the OpenAI Responses API on /v1/responses and Anthropic
// Messages on /v1/messages, streaming and not. What it does is chosen by directives in the last user text; see
// README.md. Usage: node server.mjs [port]   (prints "listening <port>")
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const LOOKBACK_BLOCKS = 20; // Anthropic checks for cache hits this many blocks before a marker
const OPENAI_CACHE_MIN = 1024; // OpenAI caches prompts from this many tokens, in steps of:
const OPENAI_CACHE_STEP = 128;

const tokens = (text) => Math.ceil(text.length / 4);
const sha = (text) => createHash('sha256').update(text).digest('hex');

let requests = [];
let anthropicCache = new Set(); // hashes of prefixes written at a marker
let openaiPrefixes = new Map(); // hash of a prefix -> its token count
let counter = 0;
// Scripted answers for requests cilia makes by itself (extraction, nightly logs), whose text a
// test does not write: [{match, reply, times}], see POST /_script.
let rules = [];

// ---- reading the request -----------------------------------------------------------

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p) => p && p.type === 'text').map((p) => p.text).join('\n');
}

// cilia's per-turn block in the last user message. It quotes stored messages (the menu), which
// may hold directives of earlier turns: those are not this turn's script.
const TURN_CONTEXT = /<turn_context>[\s\S]*?<\/turn_context>/g;

// The last user text (where directives live) without cilia's turn context and, when the
// conversation ends in tool results, the first result's text.
function readConversation(api, body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let userText = '';
  for (let i = messages.length - 1; i >= 0 && !userText; i--) {
    if (messages[i].role === 'user') userText = textOf(messages[i].content).replace(TURN_CONTEXT, '').trim();
  }
  let toolResult = null;
  const last = messages[messages.length - 1];
  if (api === 'openai' && last && last.role === 'tool') toolResult = textOf(last.content);
  if (api === 'anthropic' && last && last.role === 'user' && Array.isArray(last.content)) {
    const result = last.content.find((b) => b.type === 'tool_result');
    if (result) toolResult = textOf(result.content);
  }
  return { userText, toolResult };
}

// Responses API input items as Chat Completions messages, so that one reader serves both.
function responsesMessages(body) {
  if (typeof body.input === 'string') return [{ role: 'user', content: body.input }];
  const partsText = (content) =>
    typeof content === 'string' ? content : (content ?? []).filter((p) => p && typeof p.text === 'string').map((p) => p.text).join('\n');
  const messages = [];
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (item.type === 'function_call_output') messages.push({ role: 'tool', content: partsText(item.output) });
    else if (item.type === 'function_call') messages.push({ role: 'assistant', content: '', tool_calls: [item] });
    else if (item.role) messages.push({ role: item.role, content: partsText(item.content) });
  }
  return messages;
}

function parseScript(text) {
  const script = { reply: null, tool: null, error: null, stall: 0, slow: 0, cut: 0, reasoning: false, count: null, recalled: false };
  for (const [, name, arg = ''] of text.matchAll(/\[\[(\w+)(?::(.*?))?\]\](?!\])/gs)) {
    if (name === 'reply') script.reply = arg;
    else if (name === 'error') script.error = Number(arg) || 500;
    else if (name === 'stall') script.stall = Number(arg) || 0;
    else if (name === 'slow') script.slow = Number(arg) || 0;
    else if (name === 'cut') script.cut = Number(arg) || 1;
    else if (name === 'reasoning') script.reasoning = true;
    else if (name === 'recalled') script.recalled = true;
    else if (name === 'count') script.count = Number(arg) || 0;
    else if (name === 'tool') {
      const colon = arg.indexOf(':');
      const toolName = colon < 0 ? arg : arg.slice(0, colon);
      let input = {};
      try {
        input = colon < 0 ? {} : JSON.parse(arg.slice(colon + 1));
      } catch {
        input = { raw: arg.slice(colon + 1) };
      }
      script.tool = { name: toolName, input };
    }
  }
  return script;
}

// What the model "says": text, maybe thinking, maybe one tool call.
function plan(api, body) {
  if (api === 'responses') return plan('openai', { ...body, messages: responsesMessages(body) });
  const { userText, toolResult } = readConversation(api, body);
  const script = parseScript(userText);
  const answer = { script, text: '', thinking: null, tool: null };
  const wire = JSON.stringify(body);
  const rule = rules.find((r) => wire.includes(r.match));
  if (rule) {
    if (rule.times !== undefined && --rule.times <= 0) rules = rules.filter((r) => r !== rule);
    answer.text = rule.reply;
    return answer;
  }
  if (toolResult !== null) {
    answer.text = `tool result: ${toolResult.slice(0, 200)}`;
  } else {
    answer.text = script.reply ?? (script.tool ? '' : `echo: ${userText.replace(/\[\[.*?\]\]/gs, '').trim()}`);
    answer.tool = script.tool;
  }
  if (script.reasoning) answer.thinking = `Thinking about: ${userText.slice(0, 50)}`;
  // [[recalled]]: the answer says what the encrypted reasoning items it was sent held.
  if (script.recalled) {
    const held = (Array.isArray(body.input) ? body.input : []).filter((item) => item?.type === 'reasoning').map((item) => fakeDecrypt(item.encrypted_content) ?? item.encrypted_content);
    answer.text = `reasoning sent back: ${JSON.stringify(held)}`;
  }
  return answer;
}

// Streamed text comes in pieces of a few words.
function pieces(text) {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

// ---- prompt-cache simulation ---------------------------------------------------------

// JSON with the keys of every object sorted: key order means nothing to a real API's cache, and
// {"type":"text","text":…} made from a string must equal the same block as a client sent it.
const canonical = (value) =>
  JSON.stringify(value, (key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner,
  );

const strip = (block) => {
  if (!block || typeof block !== 'object') return block;
  const { cache_control, ...rest } = block; // the marker is not part of the cached bytes
  return rest;
};

// tools, system, then every message's blocks, in wire order: [{json, marked}]
function anthropicBlocks(body) {
  const blocks = [];
  const add = (item, marked) => blocks.push({ json: canonical(strip(item)), marked: Boolean(marked) });
  for (const tool of body.tools ?? []) add(tool, tool.cache_control);
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system ?? [];
  for (const block of system) add(block, block.cache_control);
  for (const message of body.messages ?? []) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content ?? [];
    for (const block of content) add({ role: message.role, ...strip(block) }, block.cache_control);
  }
  return blocks;
}

function chained(blocks) {
  let hash = '';
  let total = 0;
  return blocks.map((b) => {
    hash = sha(hash + b.json);
    total += tokens(b.json);
    return { ...b, hash, total };
  });
}

function anthropicUsage(body, outputText) {
  const blocks = chained(anthropicBlocks(body));
  const total = blocks.length ? blocks[blocks.length - 1].total : 0;
  const markers = blocks.map((b, i) => (b.marked ? i : -1)).filter((i) => i >= 0);
  let readEnd = -1;
  for (const m of markers) {
    for (let j = m; j >= Math.max(0, m - LOOKBACK_BLOCKS); j--) {
      if (anthropicCache.has(blocks[j].hash)) {
        readEnd = Math.max(readEnd, j);
        break;
      }
    }
  }
  const lastMarker = markers.length ? markers[markers.length - 1] : -1;
  const cacheRead = readEnd >= 0 ? blocks[readEnd].total : 0;
  const cacheWrite = lastMarker > readEnd ? blocks[lastMarker].total - cacheRead : 0;
  for (const m of markers) anthropicCache.add(blocks[m].hash);
  return {
    input_tokens: total - cacheRead - cacheWrite,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: tokens(outputText),
  };
}

function openaiUsage(body, outputText, reasoningText = '') {
  const items = [...(body.tools ?? []), ...(body.messages ?? [])].map((item) => ({ json: canonical(item) }));
  const blocks = chained(items);
  let longest = 0;
  for (const b of blocks) {
    if (openaiPrefixes.has(b.hash)) longest = b.total;
    openaiPrefixes.set(b.hash, b.total);
  }
  const total = blocks.length ? blocks[blocks.length - 1].total : 0;
  const cached = longest >= OPENAI_CACHE_MIN ? Math.floor(longest / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP : 0;
  const completion = tokens(outputText);
  return {
    prompt_tokens: total,
    completion_tokens: completion,
    total_tokens: total + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoningText ? tokens(reasoningText) : 0 },
  };
}

// ---- answers -------------------------------------------------------------------------

function errorBody(api, status) {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  const message = `fake upstream error ${status}`;
  return api === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, code: null } };
}

function openaiWhole(body, answer) {
  const id = `chatcmpl-fake-${++counter}`;
  const message = { role: 'assistant', content: answer.text || null };
  if (answer.thinking) message.reasoning_content = answer.thinking;
  if (answer.tool) {
    message.tool_calls = [
      { id: `call_fake_${counter}`, type: 'function', function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.input) } },
    ];
  }
  return {
    id,
    object: 'chat.completion',
    created: 1700000000,
    model: body.model ?? 'fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.tool ? 'tool_calls' : 'stop' }],
    usage: openaiUsage(body, answer.text + (answer.thinking ?? ''), answer.thinking),
  };
}

function anthropicContent(answer) {
  const content = [];
  if (answer.thinking) content.push({ type: 'thinking', thinking: answer.thinking, signature: 'sig-fake' });
  if (answer.text) content.push({ type: 'text', text: answer.text });
  if (answer.tool) content.push({ type: 'tool_use', id: `toolu_fake_${counter}`, name: answer.tool.name, input: answer.tool.input });
  return content;
}

function anthropicWhole(body, answer) {
  const id = `msg_fake_${++counter}`;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'fake',
    content: anthropicContent(answer),
    stop_reason: answer.tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(body, answer.text + (answer.thinking ?? '')),
  };
}

// What a reasoning model's encrypted reasoning looks like to the client: opaque, and only the
// fake can read it back (fakeDecrypt).
const fakeEncrypt = (text) => `enc-fake:${Buffer.from(text, 'utf8').toString('base64')}`;
const fakeDecrypt = (content) =>
  typeof content === 'string' && content.startsWith('enc-fake:') ? Buffer.from(content.slice(9), 'base64').toString('utf8') : null;

// Like the real API: with store false nothing was kept, so a reasoning item must carry its
// encrypted content (its id alone names nothing).
function responsesInputProblem(body) {
  for (const [i, item] of (Array.isArray(body.input) ? body.input : []).entries()) {
    if (item?.type !== 'reasoning') continue;
    if (body.store === false && typeof item.encrypted_content !== 'string') {
      return `input[${i}]: Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false.`;
    }
  }
  return null;
}

function responsesWhole(body, answer) {
  const id = `resp_fake_${++counter}`;
  const output = [];
  if (answer.thinking) {
    const reasoning = { id: `rs_fake_${counter}`, type: 'reasoning', summary: [{ type: 'summary_text', text: answer.thinking }] };
    if ((body.include ?? []).includes('reasoning.encrypted_content')) reasoning.encrypted_content = fakeEncrypt(answer.thinking);
    output.push(reasoning);
  }
  if (answer.text) {
    output.push({ id: `msg_fake_${counter}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text, annotations: [] }] });
  }
  if (answer.tool) {
    output.push({ id: `fc_fake_${counter}`, type: 'function_call', status: 'completed', call_id: `call_fake_${counter}`, name: answer.tool.name, arguments: JSON.stringify(answer.tool.input) });
  }
  const items = Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input ?? '' }];
  const usage = openaiUsage({ tools: body.tools, messages: items }, answer.text + (answer.thinking ?? ''), answer.thinking);
  return {
    id,
    object: 'response',
    created_at: 1700000000,
    status: 'completed',
    model: body.model ?? 'fake',
    output,
    usage: {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: { cached_tokens: usage.prompt_tokens_details.cached_tokens },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
      total_tokens: usage.total_tokens,
    },
  };
}

// The SSE events of an answer, as [event name or null, data object or string].
function openaiEvents(body, answer) {
  const whole = openaiWhole(body, answer);
  const base = { id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model };
  const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const events = [[null, chunk({ role: 'assistant', content: '' })]];
  for (const piece of pieces(answer.thinking ?? '')) events.push([null, chunk({ reasoning_content: piece })]);
  for (const piece of pieces(answer.text)) events.push([null, chunk({ content: piece })]);
  if (answer.tool) {
    const call = whole.choices[0].message.tool_calls[0];
    events.push([null, chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] })]);
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)].filter(Boolean)) {
      events.push([null, chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] })]);
    }
  }
  events.push([null, chunk({}, whole.choices[0].finish_reason)]);
  if (body.stream_options?.include_usage) events.push([null, { ...base, choices: [], usage: whole.usage }]);
  events.push([null, '[DONE]']);
  return events;
}

function anthropicEvents(body, answer) {
  const whole = anthropicWhole(body, answer);
  const { output_tokens, ...input } = whole.usage;
  const events = [
    ['message_start', { type: 'message_start', message: { ...whole, content: [], stop_reason: null, usage: { ...input, output_tokens: 1 } } }],
    ['ping', { type: 'ping' }],
  ];
  whole.content.forEach((block, index) => {
    const delta = (d) => ['content_block_delta', { type: 'content_block_delta', index, delta: d }];
    if (block.type === 'thinking') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } }]);
      for (const piece of pieces(block.thinking)) events.push(delta({ type: 'thinking_delta', thinking: piece }));
      events.push(delta({ type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      for (const piece of pieces(block.text)) events.push(delta({ type: 'text_delta', text: piece }));
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
      const args = JSON.stringify(block.input);
      const half = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)]) events.push(delta({ type: 'input_json_delta', partial_json: part }));
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: whole.stop_reason, stop_sequence: null }, usage: { output_tokens } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

// The Responses API's typed events, each named and numbered.
function responsesEvents(body, answer) {
  const whole = responsesWhole(body, answer);
  let sequence = 0;
  const event = (type, fields) => [type, { type, sequence_number: sequence++, ...fields }];
  const open = { ...whole, status: 'in_progress', output: [], usage: null };
  const events = [event('response.created', { response: open }), event('response.in_progress', { response: open })];
  whole.output.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === 'reasoning') {
      const text = item.summary[0].text;
      const { encrypted_content, ...opening } = item; // the encrypted content comes whole, at the item's end
      events.push(event('response.output_item.added', { output_index, item: { ...opening, summary: [] } }));
      events.push(event('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } }));
      for (const piece of pieces(text)) events.push(event('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: piece }));
      events.push(event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text }));
      events.push(event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text } }));
    } else if (item.type === 'message') {
      const text = item.content[0].text;
      events.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      events.push(event('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
      for (const piece of pieces(text)) events.push(event('response.output_text.delta', { ...at, content_index: 0, delta: piece, logprobs: [] }));
      events.push(event('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }));
      events.push(event('response.content_part.done', { ...at, content_index: 0, part: item.content[0] }));
    } else {
      events.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      const half = Math.ceil(item.arguments.length / 2);
      for (const part of [item.arguments.slice(0, half), item.arguments.slice(half)].filter(Boolean)) {
        events.push(event('response.function_call_arguments.delta', { ...at, delta: part }));
      }
      events.push(event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }));
    }
    events.push(event('response.output_item.done', { output_index, item }));
  });
  events.push(event('response.completed', { response: whole }));
  return events;
}

// Waits `ms`, or less when the caller hangs up first.
function pause(res, ms) {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const hungUp = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      res.removeListener('close', hungUp);
      resolve();
    }, ms);
    res.once('close', hungUp);
  });
}

// Streams the fake itself broke off ([[cut:N]]): not a caller that hung up.
const cutStreams = new WeakSet();

async function stream(res, events, script) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let i = 0; i < events.length && !res.destroyed; i++) {
    const [name, data] = events[i];
    res.write(`${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    if (script.cut && i + 1 >= script.cut && i + 1 < events.length) {
      cutStreams.add(res);
      await new Promise((resolve) => res.write('', resolve)); // the events so far reach the caller
      res.destroy();
      return;
    }
    if (i === 0 && script.stall) await pause(res, script.stall);
    else if (script.slow) await pause(res, script.slow);
  }
  res.end();
}

async function chat(api, body, res) {
  const answer = plan(api, body);
  const { script } = answer;
  const problem = api === 'responses' ? responsesInputProblem(body) : null;
  if (problem) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: problem, type: 'invalid_request_error', code: null } }));
    return;
  }
  if (script.error) {
    res.writeHead(script.error, { 'content-type': 'application/json' });
    res.end(JSON.stringify(errorBody(api, script.error)));
    return;
  }
  const events = { openai: openaiEvents, anthropic: anthropicEvents, responses: responsesEvents };
  const whole = { openai: openaiWhole, anthropic: anthropicWhole, responses: responsesWhole };
  if (body.stream) {
    await stream(res, events[api](body, answer), script);
    return;
  }
  if (script.stall) await pause(res, script.stall);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(whole[api](body, answer)));
}

// Anthropic's token count (POST /v1/messages/count_tokens): [[count:N]] answers N, [[error:STATUS]]
// that error; otherwise the tokens of the prompt's blocks as the cache simulation counts them.
// Like the real endpoint it refuses the fields of a messages call it does not take.
function countTokens(body, res) {
  const script = parseScript(readConversation('anthropic', body).userText);
  const send = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  for (const field of ['stream', 'max_tokens']) {
    if (field in body) {
      return send(400, { type: 'error', error: { type: 'invalid_request_error', message: `${field}: Extra inputs are not permitted` } });
    }
  }
  if (script.error) return send(script.error, errorBody('anthropic', script.error));
  const blocks = chained(anthropicBlocks(body));
  send(200, { input_tokens: script.count ?? (blocks.length ? blocks[blocks.length - 1].total : 0) });
}

const KEPT_HEADERS = ['authorization', 'x-api-key', 'anthropic-version', 'anthropic-beta', 'content-type'];

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString('utf8');
  const reply = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.method === 'GET' && req.url === '/_requests') return reply(200, requests);
  if (req.method === 'POST' && req.url === '/_script') {
    try {
      const given = JSON.parse(raw).rules;
      if (!Array.isArray(given) || !given.every((r) => typeof r.match === 'string' && r.match && typeof r.reply === 'string')) {
        throw new Error('rules: a list of {match, reply, times?}');
      }
      rules = given.map((r) => ({ match: r.match, reply: r.reply, times: r.times }));
      return reply(200, { rules: rules.length });
    } catch (error) {
      return reply(400, { error: { message: String(error.message ?? error) } });
    }
  }
  if (req.method === 'POST' && req.url === '/_reset') {
    rules = [];
    requests = [];
    anthropicCache = new Set();
    openaiPrefixes = new Map();
    return reply(200, { reset: true });
  }
  // The Anthropic API also under /anthropic, as DeepSeek serves it (https://api.deepseek.com/anthropic).
  const route = req.url.startsWith('/anthropic/v1/messages') ? req.url.slice('/anthropic'.length) : req.url;
  const api =
    { '/v1/chat/completions': 'openai', '/v1/messages': 'anthropic', '/v1/responses': 'responses', '/v1/messages/count_tokens': 'count' }[route] ??
    null;
  if (req.method !== 'POST' || !api) return reply(404, { error: { message: `no route ${req.method} ${req.url}` } });
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return reply(400, errorBody(api === 'count' ? 'anthropic' : api, 400));
  }
  const headers = Object.fromEntries(KEPT_HEADERS.filter((h) => req.headers[h]).map((h) => [h, req.headers[h]]));
  const record = { path: req.url, headers, body, closed_early: false };
  requests.push(record);
  // The caller hung up before the whole answer was written (e.g. cilia cancelled the call).
  res.on('close', () => {
    if (!res.writableFinished && !cutStreams.has(res)) record.closed_early = true;
  });
  if (api === 'count') return countTokens(body, res);
  await chat(api, body, res);
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});

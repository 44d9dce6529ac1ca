// Checks the scripted fake upstream itself, so that gateway tests can trust it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const serverPath = join(dirname(fileURLToPath(import.meta.url)), 'fake-upstream', 'server.mjs');
let child;
let base;

before(async () => {
  child = spawn(process.execPath, [serverPath, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (data) => {
      const match = /listening (\d+)/.exec(String(data));
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`fake upstream exited with ${code}`)));
  });
  base = `http://127.0.0.1:${port}`;
});

after(() => child.kill());
beforeEach(() => fetch(`${base}/_reset`, { method: 'POST' }));

const post = (path, body) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// The events of an SSE body: [{event, data}] with data parsed unless it is [DONE].
function sse(text) {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? null;
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

test('an OpenAI stream sends the reply in chunks, a usage chunk when asked, then [DONE]', async () => {
  const res = await post('/v1/chat/completions', {
    model: 'm',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'hi [[reply:one two three]] [[reasoning]]' }],
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events = sse(await res.text());
  const deltas = events.filter((e) => e.data.choices?.length).map((e) => e.data.choices[0].delta);
  assert.equal(deltas.map((d) => d.content ?? '').join(''), 'one two three');
  assert.match(deltas.map((d) => d.reasoning_content ?? '').join(''), /^Thinking about: hi/);
  const usage = events.find((e) => e.data.choices?.length === 0);
  assert.ok(usage.data.usage.prompt_tokens > 0);
  assert.equal(events.at(-1).data, '[DONE]');
});

test('a tool directive makes the model call the tool, and the continuation quotes the result', async () => {
  const first = await (
    await post('/v1/messages', {
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'find it [[tool:recall:{"query":"猫"}]]' }],
    })
  ).json();
  assert.equal(first.stop_reason, 'tool_use');
  const call = first.content.find((b) => b.type === 'tool_use');
  assert.deepEqual(call.input, { query: '猫' });
  assert.equal(call.name, 'recall');

  const second = await (
    await post('/v1/messages', {
      model: 'm',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'find it [[tool:recall:{"query":"猫"}]]' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'the cat is called Mochi' }] },
      ],
    })
  ).json();
  assert.equal(second.stop_reason, 'end_turn');
  assert.equal(second.content[0].text, 'tool result: the cat is called Mochi');

  const requests = await (await fetch(`${base}/_requests`)).json();
  assert.equal(requests.length, 2);
  assert.equal(requests[1].body.messages[2].content[0].tool_use_id, call.id);
});

test('an Anthropic stream carries the real event sequence with a streamed tool call', async () => {
  const res = await post('/v1/messages', {
    model: 'm',
    max_tokens: 100,
    stream: true,
    messages: [{ role: 'user', content: '[[reply:Looking.]] [[tool:weather:{"city":"Paris"}]]' }],
  });
  const events = sse(await res.text());
  assert.deepEqual(
    events.map((e) => e.event),
    ['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop',
     'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
     'message_delta', 'message_stop'],
  );
  const json = events.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('');
  assert.deepEqual(JSON.parse(json), { city: 'Paris' });
  assert.equal(events.at(-2).data.delta.stop_reason, 'tool_use');
});

test('an error directive answers with that status in the API shape', async () => {
  const openai = await post('/v1/chat/completions', { messages: [{ role: 'user', content: '[[error:503]]' }] });
  assert.equal(openai.status, 503);
  assert.equal((await openai.json()).error.type, 'api_error');
  const anthropic = await post('/v1/messages', { messages: [{ role: 'user', content: '[[error:429]]' }] });
  assert.equal(anthropic.status, 429);
  assert.deepEqual(await anthropic.json(), {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'fake upstream error 429' },
  });
});

test('Anthropic prompt caching: a marked prefix is written once, then read', async () => {
  const system = [{ type: 'text', text: 'persona '.repeat(500), cache_control: { type: 'ephemeral' } }];
  const turn = (history) => post('/v1/messages', { model: 'm', max_tokens: 10, system, messages: history });
  const history = [{ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] }];
  const first = (await (await turn(history)).json()).usage;
  assert.equal(first.cache_read_input_tokens, 0);
  assert.ok(first.cache_creation_input_tokens > 1000);

  // The next turn moves the marker forward: the old prefix is read, the new part written.
  const next = [
    { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    { role: 'user', content: [{ type: 'text', text: 'again', cache_control: { type: 'ephemeral' } }] },
  ];
  const second = (await (await turn(next)).json()).usage;
  assert.equal(second.cache_read_input_tokens, first.cache_creation_input_tokens);
  assert.ok(second.cache_creation_input_tokens > 0);
  assert.equal(second.input_tokens, 0);

  // A changed system text misses everything.
  system[0].text = 'another persona '.repeat(300);
  const third = (await (await turn(next)).json()).usage;
  assert.equal(third.cache_read_input_tokens, 0);
});

test('OpenAI prompt caching reports cached_tokens for a long repeated prefix', async () => {
  const messages = [{ role: 'system', content: 'rules '.repeat(1200) }, { role: 'user', content: 'one' }];
  const first = await (await post('/v1/chat/completions', { messages })).json();
  assert.equal(first.usage.prompt_tokens_details.cached_tokens, 0);
  const second = await (await post('/v1/chat/completions', { messages: [...messages.slice(0, 1), { role: 'user', content: 'two' }] })).json();
  const cached = second.usage.prompt_tokens_details.cached_tokens;
  assert.ok(cached >= 1024 && cached % 128 === 0 && cached <= second.usage.prompt_tokens);
});

test('a stall sends the first chunk, then waits', async () => {
  const started = Date.now();
  const res = await post('/v1/chat/completions', { stream: true, messages: [{ role: 'user', content: '[[stall:300]] [[reply:late]]' }] });
  const reader = res.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /"role":"assistant"/);
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.match(rest, /late/);
  assert.ok(Date.now() - started >= 250);
});

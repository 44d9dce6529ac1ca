// The fake upstream's features the gateway tests lean on: it records a caller that hangs up,
// it can drop a stream mid-answer, it does not read cilia's turn context as a script, and it
// hands out, reads back and checks encrypted reasoning as the Responses API does.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';

import { sseEvents, startFakeUpstream } from './lib/gateway.mjs';

let upstream;

before(async () => {
  upstream = await startFakeUpstream();
});
after(() => upstream.stop());
beforeEach(() => upstream.reset());

const post = (path, body, signal) =>
  fetch(upstream.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

async function waitFor(predicate, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

test('a caller that hangs up mid-stream is recorded as closed_early; one that reads to the end is not', async () => {
  const controller = new AbortController();
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  const res = await post('/v1/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: `[[slow:100]] [[reply:${words}]]` }] }, controller.signal);
  const reader = res.body.getReader();
  await reader.read();
  controller.abort();

  const whole = await post('/v1/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: '[[reply:all of it]]' }] });
  await whole.text();

  assert.ok(await waitFor(async () => (await upstream.requests())[0].closed_early), 'the hang-up is recorded');
  assert.equal((await upstream.requests())[1].closed_early, false);
});

test('a caller that hangs up during a stall ends the wait at once', async () => {
  const controller = new AbortController();
  post('/v1/messages', { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: '[[stall:600000]]' }] }, controller.signal).catch(() => {});
  assert.ok(await waitFor(async () => (await upstream.requests()).length === 1));
  controller.abort();
  assert.ok(await waitFor(async () => (await upstream.requests())[0].closed_early));
});

test('[[cut:N]] drops the stream after N events, without the closing events, and is not a hang-up', async () => {
  for (const [path, body] of [
    ['/v1/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: '[[cut:3]] [[reply:one two three four five]]' }] }],
    ['/v1/messages', { model: 'm', max_tokens: 50, stream: true, messages: [{ role: 'user', content: '[[cut:3]] [[reply:one two three four five]]' }] }],
  ]) {
    const res = await post(path, body);
    const events = [];
    await assert.rejects(async () => {
      for await (const event of sseEvents(res)) events.push(event);
    }, `${path}: the body ends in an error, not a clean end`);
    assert.equal(events.length, 3, path);
    assert.ok(!events.some((e) => e.data === '[DONE]' || e.event === 'message_stop'), path);
  }
  assert.deepEqual((await upstream.requests()).map((r) => r.closed_early), [false, false]);
});

test("directives inside cilia's <turn_context> block are not this turn's script, nor echoed", async () => {
  const res = await post('/v1/messages', {
    model: 'm',
    max_tokens: 50,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'how are you' },
          { type: 'text', text: '<turn_context>\nnow: 2026-06-19 21:03\n05-01 I said [[reply:WRONG]] [[error:500]]\n</turn_context>' },
        ],
      },
    ],
  });
  assert.equal(res.status, 200);
  const message = await res.json();
  assert.equal(message.content[0].text, 'echo: how are you');
});

test('Responses: encrypted reasoning when asked for, read back by [[recalled]], and refused by id alone with store false', async () => {
  const include = ['reasoning.encrypted_content'];
  const first = await (await post('/v1/responses', { model: 'm', include, input: 'why? [[reasoning]]' })).json();
  const reasoning = first.output.find((item) => item.type === 'reasoning');
  assert.match(reasoning.encrypted_content, /^enc-fake:/);
  const plain = await (await post('/v1/responses', { model: 'm', input: 'why? [[reasoning]]' })).json();
  assert.equal(plain.output.find((item) => item.type === 'reasoning').encrypted_content, undefined, 'only with include');

  const streamed = await post('/v1/responses', { model: 'm', include, stream: true, input: 'why? [[reasoning]]' });
  const events = [];
  for await (const event of sseEvents(streamed)) events.push(event.data);
  const added = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'reasoning');
  const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning');
  assert.equal(added.item.encrypted_content, undefined, 'the encrypted content comes with the finished item');
  assert.equal(done.item.encrypted_content, reasoning.encrypted_content);

  const theirs = { type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'opaque-x' };
  const input = [reasoning, theirs, { role: 'user', content: '[[recalled]]' }];
  const back = await (await post('/v1/responses', { model: 'm', store: false, input })).json();
  assert.equal(back.output[0].content[0].text, `reasoning sent back: ${JSON.stringify(['Thinking about: why? [[reasoning]]', 'opaque-x'])}`);

  const refused = await post('/v1/responses', { model: 'm', store: false, input: [{ type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'user', content: 'hi' }] });
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error.message, /rs_1.*not found/);
});

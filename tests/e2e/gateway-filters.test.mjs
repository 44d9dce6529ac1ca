// Output filters (docs/gateway.md, "Output filters") through the real binary, with the official
// openai and @anthropic-ai/sdk clients, on an OpenAI-compatible, a Responses and an Anthropic
// upstream: inline <think>…</think> and the reasoning fields stripped or passed per key, the
// [gateway] rewrite rules applied (also across streamed pieces), streaming and not, and the
// archive holding what the client saw.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { anthropicClient, inConversation, openaiClient, outputText } from './lib/clients.mjs';
import { RESPONSES_UPSTREAM, UPSTREAMS, openGateways, sseEvents, storedMessages, uniqueId } from './lib/gateway.mjs';

const KINDS = { chat: UPSTREAMS.openai, responses: RESPONSES_UPSTREAM, anthropic: UPSTREAMS.anthropic };
// "Hello Claude" spans two streamed pieces ("Hello ", "Claude, "): the filter holds "Hello " back.
const REWRITE = [
  ['Hello Claude', 'Hi Cilia'],
  ['secret-word', '[redacted]'],
];
const gateways = await openGateways({ gateway: { rewrite: REWRITE } }, KINDS);
after(() => gateways.stopAll());

const REPLY = '<think>plan the reply</think> Hello Claude, the secret-word is safe.';
const ASK = `[[reply:${REPLY}]] [[reasoning]]`;
// What each key's client sees.
const SEEN = {
  strip: 'Hi Cilia, the [redacted] is safe.',
  plain: '<think>plan the reply</think> Hi Cilia, the [redacted] is safe.',
  raw: REPLY,
};
const FEATURES = { strip: { strip_reasoning: true }, plain: {}, raw: { rewrite: false } };

// One key per switch set, on each gateway.
const keys = {};
async function keyFor(kind, name) {
  keys[kind] ??= {};
  if (!keys[kind][name]) {
    const gw = gateways[kind];
    const created = await gw.api('/v1/keys', { body: { name, scopes: ['chat', 'memory:read'], features: FEATURES[name] } });
    assert.equal(created.status, 200, created.text);
    keys[kind][name] = created.json.key;
  }
  return keys[kind][name];
}

async function assistantStored(gw, conversation) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const messages = await storedMessages(gw, conversation);
    const answer = messages.filter((m) => m.role === 'assistant').at(-1);
    if (answer || Date.now() > deadline) return answer?.content;
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const kind of ['chat', 'anthropic']) {
  describe(`Chat Completions on the ${kind} upstream`, () => {
    for (const stream of [false, true]) {
      for (const name of ['strip', 'plain', 'raw']) {
        test(`${stream ? 'streamed' : 'whole'}, key ${name}`, async (t) => {
          const gw = gateways[kind];
          if (gw.skip) return t.skip(gw.skip);
          const client = openaiClient(gw, { key: await keyFor(kind, name) });
          const conversation = uniqueId('filters');
          const body = { model: 'companion', messages: [{ role: 'user', content: ASK }] };
          let text = '';
          let reasoning = '';
          if (stream) {
            const chunks = await client.chat.completions.create({ ...body, stream: true }, inConversation(conversation));
            let finish = null;
            for await (const chunk of chunks) {
              const delta = chunk.choices[0]?.delta ?? {};
              text += delta.content ?? '';
              reasoning += delta.reasoning_content ?? '';
              finish = chunk.choices[0]?.finish_reason ?? finish;
            }
            assert.equal(finish, 'stop');
          } else {
            const reply = await client.chat.completions.create(body, inConversation(conversation));
            text = reply.choices[0].message.content;
            reasoning = reply.choices[0].message.reasoning_content ?? '';
          }
          assert.equal(text, SEEN[name]);
          if (name === 'strip') assert.equal(reasoning, '');
          else assert.notEqual(reasoning, '', 'thinking passes for a key that does not strip it');
          assert.equal(await assistantStored(gw, conversation), SEEN[name], 'the archive holds what the client saw');
        });
      }
    }
  });
}

for (const kind of ['anthropic', 'chat']) {
  describe(`Anthropic Messages on the ${kind} upstream`, () => {
    for (const stream of [false, true]) {
      for (const name of ['strip', 'plain']) {
        test(`${stream ? 'streamed' : 'whole'}, key ${name}`, async (t) => {
          const gw = gateways[kind];
          if (gw.skip) return t.skip(gw.skip);
          const client = anthropicClient(gw, { key: await keyFor(kind, name) });
          const conversation = uniqueId('filters');
          const body = { model: 'companion', max_tokens: 200, messages: [{ role: 'user', content: ASK }] };
          let content;
          if (stream) {
            const events = await client.messages.create({ ...body, stream: true }, inConversation(conversation));
            const blocks = [];
            for await (const event of events) {
              if (event.type === 'content_block_start') {
                assert.equal(event.index, blocks.length, 'blocks are numbered from 0 without gaps');
                blocks.push({ ...event.content_block });
              }
              if (event.type === 'content_block_delta') {
                const block = blocks[event.index];
                assert.ok(block, `a delta of a started block (${event.index})`);
                if (event.delta.type === 'text_delta') block.text += event.delta.text;
                if (event.delta.type === 'thinking_delta') block.thinking += event.delta.thinking;
              }
            }
            content = blocks;
          } else {
            content = (await client.messages.create(body, inConversation(conversation))).content;
          }
          const text = content.filter((b) => b.type === 'text').map((b) => b.text).join('');
          const thinking = content.filter((b) => b.type === 'thinking');
          assert.equal(text, SEEN[name]);
          if (name === 'strip') assert.equal(thinking.length, 0);
          else assert.equal(thinking.length, 1, 'the thinking block passes for a key that does not strip it');
          assert.equal(await assistantStored(gw, conversation), SEEN[name]);
        });
      }
    }
  });
}

for (const kind of ['responses', 'chat']) {
  describe(`Responses on the ${kind} upstream`, () => {
    for (const stream of [false, true]) {
      for (const name of ['strip', 'plain']) {
        test(`${stream ? 'streamed' : 'whole'}, key ${name}`, async (t) => {
          const gw = gateways[kind];
          if (gw.skip) return t.skip(gw.skip);
          const client = openaiClient(gw, { key: await keyFor(kind, name) });
          const conversation = uniqueId('filters');
          const body = { model: 'companion', input: ASK };
          let response;
          let deltas = '';
          if (stream) {
            const events = await client.responses.create({ ...body, stream: true }, inConversation(conversation));
            let sequence = -1;
            for await (const event of events) {
              assert.equal(event.sequence_number, sequence + 1, `sequence numbers count on: ${event.type}`);
              sequence = event.sequence_number;
              if (event.type === 'response.output_item.added' && name === 'strip') {
                assert.notEqual(event.item.type, 'reasoning');
                assert.equal(event.output_index, 0, 'the message is the first item the client sees');
              }
              if (event.type === 'response.output_text.delta') deltas += event.delta;
              if (event.type === 'response.completed') response = event.response;
            }
            assert.equal(deltas, SEEN[name]);
          } else {
            response = await client.responses.create(body, inConversation(conversation));
          }
          const reasoningItems = response.output.filter((item) => item.type === 'reasoning');
          if (name === 'strip') assert.equal(reasoningItems.length, 0);
          else if (kind === 'responses') assert.equal(reasoningItems.length, 1);
          assert.equal(outputText(response), SEEN[name]);
          assert.equal(await assistantStored(gw, conversation), SEEN[name]);
        });
      }
    }
  });
}

describe('recall rounds run before the filter', () => {
  for (const kind of ['chat', 'anthropic']) {
    for (const stream of [false, true]) {
      test(`${kind} upstream${stream ? ', streamed' : ''}: the text around a recall round is filtered as one answer`, async (t) => {
        const gw = gateways[kind];
        if (gw.skip) return t.skip(gw.skip);
        const client = openaiClient(gw, { key: await keyFor(kind, 'strip') });
        const conversation = uniqueId('filters-recall');
        const body = {
          model: 'companion',
          messages: [{ role: 'user', content: '[[reply:<think>look it up</think> Hello Claude. ]] [[tool:recall:{"query":"zebra"}]]' }],
        };
        let text = '';
        if (stream) {
          const chunks = await client.chat.completions.create({ ...body, stream: true }, inConversation(conversation));
          for await (const chunk of chunks) {
            assert.equal(chunk.choices[0]?.delta?.tool_calls, undefined, 'the recall call stays inside cilia');
            text += chunk.choices[0]?.delta?.content ?? '';
          }
        } else {
          const reply = await client.chat.completions.create(body, inConversation(conversation));
          assert.equal(reply.choices[0].message.tool_calls, undefined);
          text = reply.choices[0].message.content;
        }
        assert.ok(text.startsWith('Hi Cilia. '), text);
        assert.ok(text.includes('tool result: '), `the second round's answer follows: ${text}`);
        assert.ok(!text.includes('think'), text);
        assert.equal(await assistantStored(gw, conversation), text);
      });
    }
  }
});

describe('the wire as it is', () => {
  test('a stripped OpenAI stream carries no reasoning field and ends with [DONE]', async (t) => {
    const gw = gateways.chat;
    if (gw.skip) return t.skip(gw.skip);
    const reply = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await keyFor('chat', 'strip')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'companion', stream: true, messages: [{ role: 'user', content: ASK }] }),
    });
    assert.equal(reply.status, 200);
    const events = [];
    for await (const event of sseEvents(reply)) events.push(event);
    assert.equal(events.at(-1).data, '[DONE]');
    for (const { data } of events.slice(0, -1)) {
      assert.ok(!JSON.stringify(data).includes('reasoning'), JSON.stringify(data));
      assert.ok(!JSON.stringify(data).includes('think'), JSON.stringify(data));
    }
  });
});

// What the archive keeps of a tool conversation (docs/gateway.md "What the archive keeps"):
// through the official `openai` (Chat Completions and Responses) and `@anthropic-ai/sdk`
// clients, on an OpenAI-compatible and an Anthropic upstream (the fake one, and one that speaks
// Responses for the Responses client), a tool call and its result each stored once, the client's
// system prompt stored once and again only when it changed (not when only its clock line did),
// nothing stored twice when the history comes again, and cilia's own `recall` never stored.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { anthropicClient, inConversation, openaiClient } from './lib/clients.mjs';
import { RESPONSES_UPSTREAM, UPSTREAMS, openGateways, storedMessages, textOf, uniqueId } from './lib/gateway.mjs';

// The Responses API runs on the chat upstreams converted, and passed through on one that speaks it.
const KINDS = { ...UPSTREAMS, responses: RESPONSES_UPSTREAM };
const gateways = await openGateways({}, KINDS);
after(() => gateways.stopAll());

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city now.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const PROMPT = 'You are Ada, a weather helper.';
const CHANGED_PROMPT = 'You are Ada, a weather helper. Answer in one line.';
const clockLine = (minute) => `Current time: 2026-06-19 21:${String(minute).padStart(2, '0')}`;

// One client's way of holding a tool conversation: the request for each turn, and the answer
// read back as {text, calls: [{id, name, arguments}], message: what goes back into the history}.
// `upstreams`: the kinds it is tried on.
const CLIENTS = {
  openai: {
    upstreams: Object.keys(UPSTREAMS),
    async send(gw, conversation, { system, messages, stream = false }) {
      const request = {
        model: 'companion',
        tools: [{ type: 'function', function: WEATHER }],
        messages: [{ role: 'system', content: system }, ...messages],
      };
      const client = openaiClient(gw);
      if (!stream) {
        const message = (await client.chat.completions.create(request, inConversation(conversation))).choices[0].message;
        const calls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        return { text: message.content ?? '', calls, message };
      }
      const chunks = await client.chat.completions.create({ ...request, stream: true }, inConversation(conversation));
      let text = '';
      const calls = [];
      for await (const chunk of chunks) {
        const delta = chunk.choices[0]?.delta ?? {};
        text += delta.content ?? '';
        for (const call of delta.tool_calls ?? []) {
          calls[call.index] ??= { id: '', name: '', arguments: '' };
          if (call.id) calls[call.index].id = call.id;
          calls[call.index].name += call.function?.name ?? '';
          calls[call.index].arguments += call.function?.arguments ?? '';
        }
      }
      const message = {
        role: 'assistant',
        content: text || null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
      return { text, calls, message };
    },
    user: (text) => ({ role: 'user', content: text }),
    results: (results) => results.map((r) => ({ role: 'tool', tool_call_id: r.id, content: r.content })),
  },
  anthropic: {
    upstreams: Object.keys(UPSTREAMS),
    async send(gw, conversation, { system, messages, stream = false }) {
      const request = {
        model: 'companion',
        max_tokens: 256,
        system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
        tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters }],
        messages,
      };
      const client = anthropicClient(gw);
      const message = stream
        ? await client.messages.stream(request, inConversation(conversation)).finalMessage()
        : await client.messages.create(request, inConversation(conversation));
      const calls = message.content
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id, name: b.name, arguments: JSON.stringify(b.input) }));
      return { text: textOf(message.content), calls, message: { role: 'assistant', content: message.content } };
    },
    user: (text) => ({ role: 'user', content: text }),
    results: (results) => [
      { role: 'user', content: results.map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.content })) },
    ],
  },
  // The Responses API chains by previous_response_id: each turn sends only its new input items,
  // and `messages` here is the conversation so far, of which the items after the last answer go.
  responses: {
    upstreams: Object.keys(KINDS),
    async send(gw, conversation, { system, messages, stream = false }) {
      const answered = messages.findLastIndex((m) => m.previous_response_id);
      const request = {
        model: 'companion',
        instructions: system,
        tools: [{ type: 'function', ...WEATHER, strict: false }],
        input: messages.slice(answered + 1),
        ...(answered >= 0 ? { previous_response_id: messages[answered].previous_response_id } : {}),
      };
      const client = openaiClient(gw);
      let response;
      if (stream) {
        for await (const event of await client.responses.create({ ...request, stream: true }, inConversation(conversation))) {
          if (event.type === 'response.completed') response = event.response;
        }
      } else {
        response = await client.responses.create(request, inConversation(conversation));
      }
      const calls = response.output
        .filter((item) => item.type === 'function_call')
        .map((item) => ({ id: item.call_id, name: item.name, arguments: item.arguments }));
      const text = response.output
        .filter((item) => item.type === 'message')
        .map((item) => item.content.map((c) => c.text ?? '').join(''))
        .join('');
      return { text, calls, message: { previous_response_id: response.id } };
    },
    user: (text) => ({ role: 'user', content: text }),
    results: (results) => results.map((r) => ({ type: 'function_call_output', call_id: r.id, output: r.content })),
  },
};

const partsOf = (message) => (Array.isArray(message.content) ? message.content : []);
const partOf = (message, type) => partsOf(message).find((p) => p.type === type);

for (const [kind, upstream] of Object.entries(KINDS)) {
  const gw = gateways[kind];

  for (const [clientName, client] of Object.entries(CLIENTS)) {
    if (!client.upstreams.includes(kind)) continue;
    describe(`${clientName} client → ${kind} upstream`, () => {
      test('a tool call, its result and the system prompt are each stored once; a changed prompt again', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const conversation = uniqueId('tool-archive');
        const marker = uniqueId('paris');
        const question = client.user(`${marker} weather in Paris? [[tool:get_weather:{"city":"Paris"}]]`);

        const first = await client.send(gw, conversation, { system: `${PROMPT}\n${clockLine(3)}`, messages: [question], stream: true });
        assert.equal(first.calls.length, 1, JSON.stringify(first));
        assert.match(first.calls[0].id, upstream.toolCallId);
        assert.deepEqual(JSON.parse(first.calls[0].arguments), { city: 'Paris' });

        // The client returns the result; its clock line moved on, the prompt did not change.
        const history = [question, first.message, ...client.results([{ id: first.calls[0].id, content: 'Sunny, 24°C ☀️' }])];
        const second = await client.send(gw, conversation, { system: `${PROMPT}\n${clockLine(4)}`, messages: history });
        assert.equal(second.text, 'tool result: Sunny, 24°C ☀️');

        // The next user turn, under a changed prompt: the whole history again.
        const thanks = client.user('thanks! [[reply:You are welcome.]]');
        const third = await client.send(gw, conversation, {
          system: `${CHANGED_PROMPT}\n${clockLine(5)}`,
          messages: [...history, second.message, thanks],
        });
        assert.equal(third.text, 'You are welcome.');

        const stored = await storedMessages(gw, conversation);
        assert.deepEqual(
          stored.map((m) => m.role),
          ['system', 'user', 'assistant', 'tool', 'assistant', 'system', 'user', 'assistant'],
          JSON.stringify(stored.map((m) => [m.role, m.content])),
        );
        const [prompt, asked, called, result, answered, changed] = stored;
        assert.deepEqual(prompt.content, [{ type: 'system_prompt', text: `${PROMPT}\n${clockLine(3)}` }], 'verbatim, cache_control left out');
        assert.ok(textOf(asked.content).includes(marker));
        const call = partOf(called, 'tool_call');
        assert.deepEqual({ ...call, arguments: JSON.parse(call.arguments) }, {
          type: 'tool_call',
          id: first.calls[0].id,
          name: 'get_weather',
          arguments: { city: 'Paris' },
        });
        assert.deepEqual(partsOf(result), [{ type: 'tool_result', tool_call_id: first.calls[0].id, content: 'Sunny, 24°C ☀️' }]);
        assert.equal(textOf(answered.content), 'tool result: Sunny, 24°C ☀️');
        assert.deepEqual(changed.content, [{ type: 'system_prompt', text: `${CHANGED_PROMPT}\n${clockLine(5)}` }]);

        // The export carries them as stored.
        const dump = await gw.api('/v1/export');
        assert.equal(dump.status, 200);
        const exported = dump.text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .filter((line) => line.type === 'message' && line.conversation_id === conversation);
        assert.deepEqual(exported.map((m) => m.content), stored.map((m) => m.content));

        // Tool parts and prompts are no words: the search finds none of them.
        const search = await gw.api('/v1/search', { body: { query: 'Sunny weather helper', conversation_id: conversation } });
        assert.equal(search.status, 200);
        for (const r of search.json.results) {
          assert.ok(!r.text.includes('weather helper'), `no system prompt in a window: ${r.text}`);
        }
      });

      test('cilia\'s own recall call is never stored, only the answer after it', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const conversation = uniqueId('recall-archive');
        const marker = uniqueId('recall');
        const asked = client.user(`${marker} what do you remember? [[tool:recall:{"query":"${marker}"}]]`);
        const answer = await client.send(gw, conversation, { system: PROMPT, messages: [asked] });
        assert.deepEqual(answer.calls, [], 'the client never sees the recall call');
        assert.match(answer.text, /^tool result: /);

        const stored = await storedMessages(gw, conversation);
        assert.deepEqual(stored.map((m) => m.role), ['system', 'user', 'assistant']);
        assert.equal(textOf(stored[2].content), answer.text);
        assert.ok(!JSON.stringify(stored).includes('"tool_call"'), JSON.stringify(stored));
      });
    });
  }
}

// POST /v1/chat/completions and GET /v1/models through the official `openai` client, against an
// OpenAI-compatible and an Anthropic upstream (the fake one): whole answers and streams, usage
// chunks only when asked, client tools passed through, images, storage of the turn, routing.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { OpenAI, inConversation, openaiClient } from './lib/clients.mjs';
import {
  ALIASES,
  MODELS,
  PNG_DATA_URL,
  UPSTREAMS,
  carriesImage,
  lastUserText,
  openGateways,
  sseEvents,
  storedMessages,
  textOf,
  toolNamesOf,
  toolResultsOf,
  uniqueId,
  upstreamRequestsWith,
} from './lib/gateway.mjs';
import { metricValue } from './lib/server.mjs';

const gateways = await openGateways();
after(() => gateways.stopAll());

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city now.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const ALARM_TOOL = {
  type: 'function',
  function: {
    name: 'set_alarm',
    description: 'Sets an alarm.',
    parameters: { type: 'object', properties: { time: { type: 'string', description: 'HH:MM' } }, required: ['time'] },
  },
};

// Drains an SDK stream: {chunks, text, toolCalls: [{id, name, arguments}], finish}.
async function collect(stream) {
  const chunks = [];
  const toolCalls = [];
  let text = '';
  let finish = null;
  for await (const chunk of stream) {
    chunks.push(chunk);
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += choice.delta?.content ?? '';
    for (const call of choice.delta?.tool_calls ?? []) {
      toolCalls[call.index] ??= { id: '', name: '', arguments: '' };
      const slot = toolCalls[call.index];
      if (call.id) slot.id = call.id;
      slot.name += call.function?.name ?? '';
      slot.arguments += call.function?.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { chunks, text, toolCalls, finish };
}

for (const [kind, upstreamKind] of Object.entries(UPSTREAMS)) {
  const gw = gateways[kind];

  describe(`openai client → ${kind} upstream`, () => {
    test('/metrics counts the turn\'s tokens under the routed upstream model', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const series = (k) => `cilia_tokens_total{model="${upstreamKind.chat}",kind="${k}"}`;
      const before = (await gw.api('/metrics')).text;
      const answer = await openaiClient(gw).chat.completions.create({
        model: 'companion',
        messages: [{ role: 'user', content: `${uniqueId('metrics')} [[reply:counted]]` }],
      });
      const scraped = await gw.api('/metrics');
      assert.equal(scraped.status, 200, scraped.text);
      assert.ok(answer.usage.prompt_tokens > 0 && answer.usage.completion_tokens > 0, JSON.stringify(answer.usage));
      assert.equal(metricValue(scraped.text, series('input')) - metricValue(before, series('input')), answer.usage.prompt_tokens);
      assert.equal(metricValue(scraped.text, series('output')) - metricValue(before, series('output')), answer.usage.completion_tokens);
      const turns = `cilia_turns_total{model="${upstreamKind.chat}",status="200"}`;
      assert.equal(metricValue(scraped.text, turns) - metricValue(before, turns), 1);
    });

    test('a whole answer comes back in the OpenAI shape, and the upstream gets its own key, not the client\'s', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('whole');
      const answer = await openaiClient(gw).chat.completions.create({
        model: 'companion',
        messages: [{ role: 'user', content: `hello ${marker} [[reply:Bonjour, le monde 🌍 你好]]` }],
      });
      assert.equal(answer.object, 'chat.completion');
      assert.equal(answer.choices.length, 1);
      assert.equal(answer.choices[0].message.role, 'assistant');
      assert.equal(answer.choices[0].message.content, 'Bonjour, le monde 🌍 你好');
      assert.equal(answer.choices[0].finish_reason, 'stop');
      assert.ok(answer.usage.prompt_tokens > 0 && answer.usage.completion_tokens > 0, JSON.stringify(answer.usage));

      const [sent] = await upstreamRequestsWith(gw.upstream, marker);
      assert.equal(sent.path, upstreamKind.path);
      assert.equal(sent.body.model, upstreamKind.model);
      if (kind === 'openai') assert.equal(sent.headers.authorization, 'Bearer fake-key');
      else {
        assert.equal(sent.headers['x-api-key'], 'fake-key');
        assert.ok(sent.headers['anthropic-version'], 'anthropic-version is sent');
      }
      assert.ok(!JSON.stringify(sent.headers).includes(gw.key), 'the client key never reaches the upstream');
    });

    test('a stream arrives chunk by chunk and ends with [DONE], with no usage chunk the client did not ask for', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('stream');
      const reply = 'one two three four five six';
      const { chunks, text, finish } = await collect(
        await openaiClient(gw).chat.completions.create({
          model: 'companion',
          stream: true,
          messages: [{ role: 'user', content: `${marker} [[reply:${reply}]]` }],
        }),
      );
      assert.equal(text, reply);
      assert.equal(finish, 'stop');
      assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length > 1, 'more than one content chunk');
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
      assert.ok(chunks.every((c) => !c.usage && c.choices.length === 1), 'no usage chunk');
      const [sent] = await upstreamRequestsWith(gw.upstream, marker);
      assert.equal(sent.body.stream, true);

      // The raw bytes: SSE data frames, the last one [DONE].
      const raw = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'companion', stream: true, messages: [{ role: 'user', content: `raw ${marker} [[reply:${reply}]]` }] }),
      });
      assert.equal(raw.status, 200);
      assert.match(raw.headers.get('content-type'), /^text\/event-stream/);
      const events = [];
      for await (const event of sseEvents(raw)) events.push(event);
      assert.equal(events.at(-1).data, '[DONE]');
      assert.equal(events.filter((e) => e.data === '[DONE]').length, 1);
    });

    test('stream_options.include_usage adds one usage chunk, with no choices, before [DONE]', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const { chunks, text } = await collect(
        await openaiClient(gw).chat.completions.create({
          model: 'companion',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: `${uniqueId('usage')} [[reply:counted words]]` }],
        }),
      );
      assert.equal(text, 'counted words');
      const withUsage = chunks.filter((c) => c.usage);
      assert.equal(withUsage.length, 1, 'exactly one usage chunk');
      assert.equal(withUsage[0], chunks.at(-1), 'it is the last chunk');
      assert.deepEqual(withUsage[0].choices, []);
      assert.ok(withUsage[0].usage.prompt_tokens > 0 && withUsage[0].usage.completion_tokens > 0);
    });

    for (const stream of [false, true]) {
      test(`client tools pass through in order before recall, and their call comes back with its id (${stream ? 'stream' : 'whole'})`, async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const client = openaiClient(gw);
        const conversation = uniqueId('tools');
        const marker = uniqueId('weather');
        const question = { role: 'user', content: `${marker} weather? [[tool:get_weather:{"city":"Paris"}]]` };
        const request = { model: 'companion', tools: [WEATHER_TOOL, ALARM_TOOL], messages: [question] };
        let call;
        if (stream) {
          const { toolCalls, finish, text } = await collect(await client.chat.completions.create({ ...request, stream: true }, inConversation(conversation)));
          assert.equal(finish, 'tool_calls');
          assert.equal(text, '');
          assert.equal(toolCalls.length, 1);
          call = { id: toolCalls[0].id, type: 'function', function: { name: toolCalls[0].name, arguments: toolCalls[0].arguments } };
        } else {
          const answer = await client.chat.completions.create(request, inConversation(conversation));
          assert.equal(answer.choices[0].finish_reason, 'tool_calls');
          assert.equal(answer.choices[0].message.tool_calls.length, 1);
          call = answer.choices[0].message.tool_calls[0];
        }
        assert.equal(call.function.name, 'get_weather');
        assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
        assert.match(call.id, upstreamKind.toolCallId, "the upstream's call id, unchanged");

        const [sent] = await upstreamRequestsWith(gw.upstream, marker);
        assert.deepEqual(toolNamesOf(sent.body), ['get_weather', 'set_alarm', 'recall']);
        if (kind === 'openai') assert.deepEqual(sent.body.tools.slice(0, 2), [WEATHER_TOOL, ALARM_TOOL], 'the definitions untouched');
        else {
          assert.equal(sent.body.tools[0].description, WEATHER_TOOL.function.description);
          assert.deepEqual(sent.body.tools[0].input_schema, WEATHER_TOOL.function.parameters);
        }

        // The client runs its tool and sends the result back.
        const followUp = await client.chat.completions.create(
          {
            ...request,
            messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 24°C ☀️' }],
          },
          inConversation(conversation),
        );
        assert.equal(followUp.choices[0].message.content, 'tool result: Sunny, 24°C ☀️');
        const requests = await upstreamRequestsWith(gw.upstream, marker, { count: 2 });
        assert.deepEqual(toolResultsOf(requests.at(-1).body), [{ id: call.id, text: 'Sunny, 24°C ☀️' }]);
      });
    }

    test('an image given as a data URL reaches a model that sees it, and the answer comes back', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('image');
      const conversation = uniqueId('image-conv');
      const answer = await openaiClient(gw).chat.completions.create(
        {
          model: 'companion',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: `what is in this picture? ${marker}` },
                { type: 'image_url', image_url: { url: PNG_DATA_URL } },
              ],
            },
          ],
        },
        inConversation(conversation),
      );
      assert.ok(answer.choices[0].message.content, 'an answer');
      const sent = await upstreamRequestsWith(gw.upstream, marker);
      assert.ok(sent.some((r) => carriesImage(r.body)), `the image went upstream: ${JSON.stringify(sent.map((r) => r.body.model))}`);

      const stored = await storedMessages(gw, conversation);
      const user = stored.find((m) => m.role === 'user');
      assert.ok(user, 'the user message is stored');
      assert.ok(JSON.stringify(user.content).includes(marker));
      assert.ok(Array.isArray(user.content) && user.content.some((part) => part.type !== 'text'), `the image is kept: ${JSON.stringify(user.content).slice(0, 300)}`);
    });

    test('the turn is stored verbatim, and a retried identical request stores the user message once', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const client = openaiClient(gw);
      const conversation = uniqueId('verbatim');
      const said = `今天跑了10公里 🏃‍♀️  <b>two  spaces</b>\n\tand a tab ${uniqueId('v')}`;
      const request = { model: 'companion', messages: [{ role: 'user', content: `${said} [[reply:Well done — 加油!]]` }] };
      await client.chat.completions.create(request, inConversation(conversation));
      await client.chat.completions.create(request, inConversation(conversation));

      const stored = await storedMessages(gw, conversation);
      const users = stored.filter((m) => m.role === 'user');
      assert.equal(users.length, 1, JSON.stringify(stored));
      assert.equal(textOf(users[0].content), request.messages[0].content);
      assert.ok(!JSON.stringify(stored).includes('<turn_context>'), 'the turn context is not stored');
      const last = stored.at(-1);
      assert.equal(last.role, 'assistant');
      assert.equal(textOf(last.content), 'Well done — 加油!');
    });
  });
}

describe('openai client: models and routing', () => {
  const gw = gateways.openai;

  test('GET /v1/models lists the public name first, the aliases and the routed targets', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const ids = [];
    for await (const model of openaiClient(gw).models.list()) {
      assert.equal(model.object, 'model');
      ids.push(model.id);
    }
    assert.equal(ids[0], 'companion');
    for (const id of [...Object.keys(ALIASES), MODELS.openai, MODELS.extract, MODELS.vision]) assert.ok(ids.includes(id), `${id} in ${ids}`);
    assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  });

  test('"<provider>/<id>" and aliases go where they point; an unknown model is a 400 that names the models', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const client = openaiClient(gw);
    for (const [model, path, upstreamModel] of [
      ['anth/claude-fake-x', '/v1/messages', 'claude-fake-x'],
      ['oai/some/model:with-slash', '/v1/chat/completions', 'some/model:with-slash'],
      ['gpt-4o-mini', '/v1/chat/completions', 'gpt-fake-mini'],
      ['claude-haiku-4-5', '/v1/messages', 'claude-fake-mini'],
    ]) {
      const marker = uniqueId('route');
      const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `${marker} [[reply:routed]]` }] });
      assert.equal(answer.choices[0].message.content, 'routed', model);
      const [sent] = await upstreamRequestsWith(gw.upstream, marker);
      assert.equal(sent.path, path, model);
      assert.equal(sent.body.model, upstreamModel, model);
    }

    const error = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e) => e);
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.equal(error.status, 400);
    assert.match(error.message, /companion/);
  });

  test('without a key the answer is a 401 in the OpenAI shape', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const error = await openaiClient(gw, { key: 'cilia_wrong' })
      .chat.completions.create({ model: 'companion', messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e) => e);
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(typeof error.error?.message, 'string');
    assert.deepEqual(await gw.upstream.requests().then((all) => all.filter((r) => lastUserText(r.body) === 'hi')), []);
  });
});

// POST /v1/messages through the official `@anthropic-ai/sdk` client, against an Anthropic and an
// OpenAI-compatible upstream (the fake one): whole answers and the real event sequence,
// client tools passed through, images, thinking, storage of the turn.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { Anthropic, anthropicClient, inConversation } from './lib/clients.mjs';
import {
  PNG_BASE64,
  UPSTREAMS,
  carriesImage,
  openGateways,
  storedMessages,
  textOf,
  toolNamesOf,
  toolResultsOf,
  uniqueId,
  upstreamRequestsWith,
} from './lib/gateway.mjs';

const gateways = await openGateways();
after(() => gateways.stopAll());

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city now.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const ALARM_TOOL = {
  name: 'set_alarm',
  description: 'Sets an alarm.',
  input_schema: { type: 'object', properties: { time: { type: 'string' } }, required: ['time'] },
};

const textBlocks = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

for (const [kind, upstreamKind] of Object.entries(UPSTREAMS)) {
  const gw = gateways[kind];

  describe(`anthropic client → ${kind} upstream`, () => {
    test('a whole answer comes back in the Messages shape, and the upstream gets its own key', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('whole');
      const message = await anthropicClient(gw).messages.create({
        model: 'companion',
        max_tokens: 256,
        system: 'Answer briefly.',
        messages: [{ role: 'user', content: `${marker} [[reply:Hallo Welt 🌍 你好]]` }],
      });
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(textBlocks(message), 'Hallo Welt 🌍 你好');
      assert.equal(message.stop_reason, 'end_turn');
      assert.ok(message.usage.output_tokens > 0, JSON.stringify(message.usage));
      assert.equal(typeof message.usage.input_tokens, 'number');

      const [sent] = await upstreamRequestsWith(gw.upstream, marker);
      assert.equal(sent.path, upstreamKind.path);
      assert.equal(sent.body.model, upstreamKind.model);
      assert.ok(!JSON.stringify(sent.headers).includes(gw.key), 'the client key never reaches the upstream');
    });

    test('a stream has the real event sequence and the SDK assembles the message', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const reply = 'alpha beta gamma delta epsilon';
      const stream = anthropicClient(gw).messages.stream({
        model: 'companion',
        max_tokens: 256,
        messages: [{ role: 'user', content: `${uniqueId('stream')} [[reply:${reply}]]` }],
      });
      const types = [];
      const texts = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      stream.on('text', (text) => texts.push(text));
      const message = await stream.finalMessage();
      assert.equal(textBlocks(message), reply);
      assert.ok(texts.length > 1, 'text arrives in pieces');
      assert.equal(texts.join(''), reply);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(types[0], 'message_start');
      assert.equal(types.at(-1), 'message_stop');
      assert.equal(types.at(-2), 'message_delta');
      const blockEvents = types.filter((type) => type.startsWith('content_block'));
      assert.equal(blockEvents[0], 'content_block_start');
      assert.equal(blockEvents.at(-1), 'content_block_stop');
      assert.ok(message.usage.output_tokens > 0);
    });

    for (const stream of [false, true]) {
      test(`client tools pass through in order before recall, and their tool_use comes back with its id (${stream ? 'stream' : 'whole'})`, async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const client = anthropicClient(gw);
        const conversation = uniqueId('tools');
        const marker = uniqueId('weather');
        const question = { role: 'user', content: `${marker} weather? [[tool:get_weather:{"city":"Paris"}]]` };
        const request = { model: 'companion', max_tokens: 256, tools: [WEATHER_TOOL, ALARM_TOOL], messages: [question] };
        const message = stream
          ? await client.messages.stream(request, inConversation(conversation)).finalMessage()
          : await client.messages.create(request, inConversation(conversation));
        assert.equal(message.stop_reason, 'tool_use');
        const uses = message.content.filter((b) => b.type === 'tool_use');
        assert.equal(uses.length, 1, JSON.stringify(message.content));
        assert.equal(uses[0].name, 'get_weather');
        assert.deepEqual(uses[0].input, { city: 'Paris' });
        assert.match(uses[0].id, upstreamKind.toolCallId, "the upstream's call id, unchanged");

        const [sent] = await upstreamRequestsWith(gw.upstream, marker);
        assert.deepEqual(toolNamesOf(sent.body), ['get_weather', 'set_alarm', 'recall']);
        if (kind === 'anthropic') assert.deepEqual(sent.body.tools.slice(0, 2), [WEATHER_TOOL, ALARM_TOOL], 'the definitions untouched');
        else assert.deepEqual(sent.body.tools[0].function.parameters, WEATHER_TOOL.input_schema);

        const followUp = await client.messages.create(
          {
            ...request,
            messages: [
              question,
              { role: 'assistant', content: message.content },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: 'Sunny, 24°C ☀️' }] },
            ],
          },
          inConversation(conversation),
        );
        assert.equal(textBlocks(followUp), 'tool result: Sunny, 24°C ☀️');
        const requests = await upstreamRequestsWith(gw.upstream, marker, { count: 2 });
        assert.deepEqual(toolResultsOf(requests.at(-1).body), [{ id: uses[0].id, text: 'Sunny, 24°C ☀️' }]);
      });
    }

    test('an image block reaches a model that sees it, and is kept in the stored message', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('image');
      const conversation = uniqueId('image-conv');
      const message = await anthropicClient(gw).messages.create(
        {
          model: 'companion',
          max_tokens: 256,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
                { type: 'text', text: `what is this? ${marker}` },
              ],
            },
          ],
        },
        inConversation(conversation),
      );
      assert.ok(textBlocks(message), 'an answer');
      const sent = await upstreamRequestsWith(gw.upstream, marker);
      assert.ok(sent.some((r) => carriesImage(r.body)), 'the image went upstream');
      const user = (await storedMessages(gw, conversation)).find((m) => m.role === 'user');
      assert.ok(user && JSON.stringify(user.content).includes(marker), 'the user message is stored');
      assert.ok(Array.isArray(user.content) && user.content.some((part) => part.type !== 'text'), 'the image is kept');
    });

    test('thinking comes back as a thinking block before the text', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const message = await anthropicClient(gw).messages.create({
        model: 'companion',
        max_tokens: 256,
        messages: [{ role: 'user', content: `${uniqueId('think')} [[reasoning]] [[reply:42]]` }],
      });
      assert.deepEqual(message.content.map((b) => b.type), ['thinking', 'text']);
      assert.match(message.content[0].thinking, /^Thinking about:/);
      if (kind === 'anthropic') assert.equal(message.content[0].signature, 'sig-fake', 'the signature is kept');
      assert.equal(textBlocks(message), '42');
    });

    test('the turn is stored verbatim, and a retried identical request stores the user message once', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const client = anthropicClient(gw);
      const conversation = uniqueId('verbatim');
      const said = `周末去爬山⛰️  <i>two  spaces</i>\n${uniqueId('v')} [[reply:Have fun — 注意安全]]`;
      const request = { model: 'companion', max_tokens: 256, messages: [{ role: 'user', content: said }] };
      await client.messages.create(request, inConversation(conversation));
      await client.messages.create(request, inConversation(conversation));
      const stored = await storedMessages(gw, conversation);
      const users = stored.filter((m) => m.role === 'user');
      assert.equal(users.length, 1, JSON.stringify(stored));
      assert.equal(textOf(users[0].content), said);
      assert.ok(!JSON.stringify(stored).includes('<turn_context>'), 'the turn context is not stored');
      assert.equal(stored.at(-1).role, 'assistant');
      assert.equal(textOf(stored.at(-1).content), 'Have fun — 注意安全');
    });
  });
}

describe('anthropic client: errors in its own shape', () => {
  const gw = gateways.anthropic;

  test('an unknown model is a 400 with an Anthropic-shaped error', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const error = await anthropicClient(gw)
      .messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e) => e);
    assert.ok(error instanceof Anthropic.BadRequestError, String(error));
    assert.equal(error.error?.type, 'error');
    assert.equal(error.error?.error?.type, 'invalid_request_error');
  });

  test('a wrong x-api-key is a 401 with an Anthropic-shaped error', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const error = await anthropicClient(gw, { key: 'cilia_wrong' })
      .messages.create({ model: 'companion', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e) => e);
    assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
    assert.equal(error.error?.type, 'error');
  });
});

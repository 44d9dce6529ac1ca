// POST /v1/messages/count_tokens through `@anthropic-ai/sdk`'s client.messages.countTokens: an
// anthropic-kind route asks the upstream (the fake answers [[count:N]]), an OpenAI route and an
// upstream that 404s get cilia's estimate; X-Cilia-Counted-By says which. Other upstream errors
// and bad bodies come back in Anthropic's error shape.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { Anthropic, anthropicClient } from './lib/clients.mjs';
import { MODELS, openGateway, uniqueId, upstreamRequestsWith } from './lib/gateway.mjs';

const gw = await openGateway({ chat: MODELS.anthropic });
after(() => gw.stop());

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city now.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

// cilia's estimate (text/tokens.h) for ASCII text: a token per four bytes, rounded up.
const asciiTokens = (text) => Math.ceil(Buffer.byteLength(text) / 4);

async function count(params, options) {
  const { data, response } = await anthropicClient(gw).messages.countTokens(params, options).withResponse();
  return { tokens: data.input_tokens, countedBy: response.headers.get('x-cilia-counted-by') };
}

describe('count_tokens', () => {
  test('an anthropic route forwards the request with the routed model and returns the upstream count', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const marker = uniqueId('count');
    const result = await count(
      {
        model: 'companion',
        system: 'Answer briefly.',
        tools: [WEATHER_TOOL],
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: `${marker} [[count:1234]]` }],
      },
      { headers: { 'anthropic-beta': 'token-efficient-tools-2025-02-19' } },
    );
    assert.deepEqual(result, { tokens: 1234, countedBy: 'upstream' });
    const [sent] = await upstreamRequestsWith(gw.upstream, marker);
    assert.equal(sent.path, '/v1/messages/count_tokens');
    assert.equal(sent.body.model, 'claude-fake');
    assert.equal(sent.body.system, 'Answer briefly.');
    assert.deepEqual(sent.body.tools, [WEATHER_TOOL]);
    assert.deepEqual(sent.body.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(sent.headers['x-api-key'], 'fake-key');
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent.headers['anthropic-beta'], 'token-efficient-tools-2025-02-19');
    assert.ok(!JSON.stringify(sent).includes(gw.key), 'the client key never reaches the upstream');
    assert.ok(!('stream' in sent.body) && !sent.body.messages[0].content.includes('turn_context'), 'the request as the client sent it');
  });

  test('an upstream without the endpoint (404) gets the estimate', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const text = `${uniqueId('missing')} [[error:404]]`;
    const result = await count({ model: 'claude-haiku-4-5', system: 'Be kind.', messages: [{ role: 'user', content: text }] });
    assert.deepEqual(result, { tokens: asciiTokens('Be kind.') + asciiTokens(text), countedBy: 'estimate' });
    const [sent] = await upstreamRequestsWith(gw.upstream, text);
    assert.equal(sent.body.model, 'claude-fake-mini');
  });

  test('an OpenAI route is estimated without calling the upstream, tool use and results included', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const marker = uniqueId('oai');
    const input = { city: 'Paris' };
    const result = await count({
      model: MODELS.openai,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: `${marker} weather?` },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    const expected =
      asciiTokens(JSON.stringify(WEATHER_TOOL)) +
      asciiTokens(`${marker} weather?`) +
      asciiTokens('get_weather') +
      asciiTokens(JSON.stringify(input)) +
      asciiTokens('sunny');
    assert.deepEqual(result, { tokens: expected, countedBy: 'estimate' });
    const sent = (await gw.upstream.requests()).filter((r) => JSON.stringify(r.body).includes(marker));
    assert.deepEqual(sent, []);
  });

  test("the upstream's other errors come back with their status in Anthropic's shape", async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    for (const [status, ErrorClass] of [
      [429, Anthropic.RateLimitError],
      [401, Anthropic.AuthenticationError],
    ]) {
      await assert.rejects(
        anthropicClient(gw).messages.countTokens({ model: 'companion', messages: [{ role: 'user', content: `[[error:${status}]]` }] }),
        (error) => {
          assert.ok(error instanceof ErrorClass, `${status}: ${error}`);
          assert.equal(error.status, status);
          assert.equal(error.error.type, 'error');
          assert.match(error.error.error.message, new RegExp(`fake upstream error ${status}`));
          return true;
        },
      );
    }
  });

  test('bad bodies are 400 in Anthropic shape, naming the field', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    for (const [body, field] of [
      [{ messages: [{ role: 'user', content: 'hi' }] }, 'model'],
      [{ model: 'companion' }, 'messages'],
      [{ model: 'companion', messages: ['hi'] }, 'messages[0]'],
    ]) {
      const reply = await gw.api('/v1/messages/count_tokens', { body });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.json.type, 'error');
      assert.equal(reply.json.error.type, 'invalid_request_error');
      assert.ok(reply.json.error.message.includes(field), reply.json.error.message);
    }
    await assert.rejects(
      anthropicClient(gw).messages.countTokens({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
      (error) => error instanceof Anthropic.BadRequestError && /no-such-model/.test(error.error.error.message),
    );
  });
});

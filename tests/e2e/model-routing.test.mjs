// Model ids that change and Anthropic base URLs (issue 14), through the Anthropic SDK: alias
// patterns and models.fallback route ids no exact alias names (Claude Code's new ones), and an
// anthropic-kind provider reaches {base}/v1/messages whether its base_url ends in /v1
// (`anth`), is a bare host like https://api.anthropic.com (`anth-root`) or a path like
// https://api.deepseek.com/anthropic (`anth-path`).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { anthropicClient } from './lib/clients.mjs';
import { openGateway, uniqueId, upstreamRequestsWith } from './lib/gateway.mjs';

const gw = await openGateway({
  chat: 'anth-root/claude-fake',
  providers: [
    { name: 'anth-root', kind: 'anthropic', path: '' },
    { name: 'anth-path', kind: 'anthropic', path: '/anthropic' },
  ],
  aliases: { 'claude-*-haiku-*': 'anth/claude-fake-haiku', 'claude-*': 'anth-path/claude-fake-main' },
  models: { fallback: 'oai/gpt-fake-fallback' },
});
after(() => gw.stop());

// One turn; returns the request the fake upstream received for it.
async function sentFor(model) {
  const marker = uniqueId('route');
  const message = await anthropicClient(gw).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: `${marker} hello` }] });
  assert.match(message.content.map((b) => b.text ?? '').join(''), /echo: /, `${model}: an answer`);
  const [sent] = await upstreamRequestsWith(gw.upstream, marker);
  assert.ok(sent, `${model}: the upstream got the turn`);
  return sent;
}

describe('anthropic base URLs', () => {
  test('with /v1, without it, and under a path: every form reaches …/v1/messages and count_tokens', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    for (const [model, path] of [
      ['anth/claude-fake', '/v1/messages'],
      ['anth-root/claude-fake', '/v1/messages'],
      ['companion', '/v1/messages'],
      ['anth-path/claude-fake', '/anthropic/v1/messages'],
    ]) {
      const sent = await sentFor(model);
      assert.equal(sent.path, path, model);
      assert.equal(sent.headers['x-api-key'], 'fake-key');
    }
    for (const [model, path] of [['anth-root/claude-fake', '/v1/messages/count_tokens'], ['anth-path/claude-fake', '/anthropic/v1/messages/count_tokens']]) {
      const marker = uniqueId('count');
      const { data, response } = await anthropicClient(gw)
        .messages.countTokens({ model, messages: [{ role: 'user', content: `${marker} [[count:77]]` }] })
        .withResponse();
      assert.equal(data.input_tokens, 77, model);
      assert.equal(response.headers.get('x-cilia-counted-by'), 'upstream', `${model}: counted upstream, not estimated after a 404`);
      const [sent] = await upstreamRequestsWith(gw.upstream, marker);
      assert.equal(sent.path, path);
    }
  });
});

describe('model ids that change', () => {
  test('the most specific pattern wins, an exact alias wins over patterns, and an unknown id goes to the fallback', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const cases = [
      ['claude-opus-4-7', '/anthropic/v1/messages', 'claude-fake-main'], // claude-*
      ['claude-sonnet-5-0', '/anthropic/v1/messages', 'claude-fake-main'],
      ['claude-3-5-haiku-20241022', '/v1/messages', 'claude-fake-haiku'], // claude-*-haiku-* over claude-*
      ['claude-haiku-4-5', '/v1/messages', 'claude-fake-mini'], // the exact alias over both patterns
      ['gpt-7-preview', '/v1/chat/completions', 'gpt-fake-fallback'], // nothing matches: models.fallback
    ];
    for (const [model, path, upstreamModel] of cases) {
      const sent = await sentFor(model);
      assert.equal(sent.path, path, model);
      assert.equal(sent.body.model, upstreamModel, model);
    }
  });

  test('GET /v1/models lists exact aliases and the fallback target, never a pattern', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const reply = await gw.api('/v1/models');
    assert.equal(reply.status, 200, reply.text);
    const ids = reply.json.data.map((m) => m.id);
    assert.equal(ids[0], 'companion');
    assert.ok(ids.includes('claude-haiku-4-5'), ids.join(', '));
    assert.ok(ids.includes('oai/gpt-fake-fallback'), ids.join(', '));
    assert.ok(!ids.some((id) => id.includes('*')), ids.join(', '));
  });
});

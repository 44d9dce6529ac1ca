// When the upstream fails: its status and an error in the client's own shape; a stream that
// breaks or stalls past the provider's idle timeout ends with an error the SDKs raise; a client
// that goes away cancels the upstream call. Both clients, both upstream kinds.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { Anthropic, OpenAI, anthropicClient, openaiClient } from './lib/clients.mjs';
import { UPSTREAMS, openGateways, uniqueId, upstreamRequestsWith } from './lib/gateway.mjs';

const gateways = await openGateways();
after(() => gateways.stopAll());

// The two clients behind one interface: send(text, {stream, signal}) resolves to the answer's
// text (a stream is drained; onText sees each piece), rejecting as the SDK does.
const CLIENTS = {
  openai: {
    ErrorClass: OpenAI.APIError,
    async send(gw, text, { stream = false, onText = () => {}, signal } = {}) {
      const body = { model: 'companion', messages: [{ role: 'user', content: text }] };
      const client = openaiClient(gw);
      if (!stream) return (await client.chat.completions.create(body, { signal })).choices[0].message.content;
      let all = '';
      for await (const chunk of await client.chat.completions.create({ ...body, stream: true }, { signal })) {
        const piece = chunk.choices[0]?.delta?.content ?? '';
        if (piece) onText(piece);
        all += piece;
      }
      return all;
    },
    // {"error":{"message","type","code"}}
    checkErrorBody(json) {
      assert.equal(typeof json.error?.message, 'string', JSON.stringify(json));
      assert.equal(typeof json.error?.type, 'string', JSON.stringify(json));
      assert.ok('code' in json.error, JSON.stringify(json));
    },
    path: '/v1/chat/completions',
  },
  anthropic: {
    ErrorClass: Anthropic.APIError,
    async send(gw, text, { stream = false, onText = () => {}, signal } = {}) {
      const body = { model: 'companion', max_tokens: 256, messages: [{ role: 'user', content: text }] };
      const client = anthropicClient(gw);
      const content = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      if (!stream) return content(await client.messages.create(body, { signal }));
      let all = '';
      for await (const event of await client.messages.create({ ...body, stream: true }, { signal })) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          onText(event.delta.text);
          all += event.delta.text;
        }
      }
      return all;
    },
    // {"type":"error","error":{"type","message"}}
    checkErrorBody(json) {
      assert.equal(json.type, 'error', JSON.stringify(json));
      assert.equal(typeof json.error?.type, 'string', JSON.stringify(json));
      assert.equal(typeof json.error?.message, 'string', JSON.stringify(json));
    },
    path: '/v1/messages',
  },
};

const rejection = (promise) => promise.then(() => null, (error) => error);

async function waitFor(predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const words = (n) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

for (const [clientName, client] of Object.entries(CLIENTS)) {
  for (const kind of Object.keys(UPSTREAMS)) {
    const gw = gateways[kind];

    describe(`${clientName} client → ${kind} upstream: faults`, () => {
      for (const [status, type] of [
        [500, 'api_error'],
        [429, 'rate_limit_error'],
        [400, 'invalid_request_error'],
      ]) {
        test(`an upstream ${status} reaches the client as ${status} with a ${clientName}-shaped error, streaming or not`, async (t) => {
          if (gw.skip) return t.skip(gw.skip);
          for (const stream of [false, true]) {
            const marker = uniqueId(`e${status}`);
            const error = await rejection(client.send(gw, `${marker} [[error:${status}]]`, { stream }));
            assert.ok(error instanceof client.ErrorClass, `${stream ? 'stream' : 'whole'}: ${error}`);
            assert.equal(error.status, status, `${stream ? 'stream' : 'whole'}: ${error}`);
            const tries = await upstreamRequestsWith(gw.upstream, marker);
            if (status === 400) assert.equal(tries.length, 1, 'a 400 is not retried');
            else assert.ok(tries.length >= 1 && tries.length <= 3, `retried at most twice: ${tries.length}`);
          }
          const raw = await fetch(gw.url + client.path, {
            method: 'POST',
            headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'companion', max_tokens: 10, messages: [{ role: 'user', content: `${uniqueId('raw')} [[error:${status}]]` }] }),
          });
          assert.equal(raw.status, status);
          const json = await raw.json();
          client.checkErrorBody(json);
          assert.equal(json.error.type, type);
        });
      }

      test('a stream that stalls past the idle timeout ends with an error after what came before, and the upstream call is cut', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const marker = uniqueId('stall');
        const pieces = [];
        const error = await rejection(client.send(gw, `${marker} [[reply:${words(5)}]] [[stall:20000]]`, { stream: true, onText: (p) => pieces.push(p) }));
        assert.ok(error instanceof client.ErrorClass, String(error));
        assert.ok(words(5).startsWith(pieces.join('')), 'what arrived is the start of the answer');
        const [sent] = await upstreamRequestsWith(gw.upstream, marker);
        assert.ok(await waitFor(async () => (await upstreamRequestsWith(gw.upstream, marker))[0].closed_early, 5_000), 'cilia hung up on the stalled upstream');
        assert.ok(sent, 'the request reached the upstream');
      });

      test('a whole answer that does not begin within the first-byte timeout is a 504', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const error = await rejection(client.send(gw, `${uniqueId('slow-start')} [[stall:20000]]`));
        assert.ok(error instanceof client.ErrorClass, String(error));
        assert.equal(error.status, 504);
      });

      test('a stream the upstream drops mid-answer ends with an error event, not silence', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const pieces = [];
        const error = await rejection(client.send(gw, `${uniqueId('cut')} [[reply:${words(8)}]] [[cut:5]]`, { stream: true, onText: (p) => pieces.push(p) }));
        assert.ok(error instanceof client.ErrorClass, `the SDK raises: ${error}`);
        assert.ok(words(8).startsWith(pieces.join('')));
        assert.notEqual(pieces.join(''), words(8));
      });

      test('a client that aborts a stream cancels the upstream call', async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const marker = uniqueId('abort');
        const controller = new AbortController();
        const sent = client.send(gw, `${marker} [[slow:100]] [[reply:${words(100)}]]`, {
          stream: true,
          signal: controller.signal,
          onText: () => controller.abort(),
        });
        await rejection(sent); // the SDKs end an aborted stream quietly or with an abort error
        assert.ok(
          await waitFor(async () => (await upstreamRequestsWith(gw.upstream, marker))[0]?.closed_early, 8_000),
          'the upstream saw the call end before the answer did',
        );
      });
    });
  }
}

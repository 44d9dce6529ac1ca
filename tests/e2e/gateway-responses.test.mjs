// The OpenAI Responses API (POST /v1/responses) through cilia, with the official openai SDK,
// on every kind of upstream: an OpenAI-compatible one that speaks only Chat Completions, one
// that speaks Responses (wire_api = "responses": the client's body passed through with the
// memory added), and Anthropic. Streaming and not, function
// tools, previous_response_id chains, the recall tool run inside cilia, a fact from one chat
// reaching the upstream in a later new chat, and the routes that read kept responses.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { inConversation, openaiClient, outputText } from './lib/clients.mjs';
import { RESPONSES_UPSTREAM, UPSTREAMS, openGateways, storedMessages, uniqueId, waitUntilSearchable } from './lib/gateway.mjs';

const KINDS = { chat: UPSTREAMS.openai, responses: RESPONSES_UPSTREAM, anthropic: UPSTREAMS.anthropic };
const gateways = await openGateways({}, KINDS);
after(() => gateways.stopAll());

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city now.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The upstream's requests holding `marker` anywhere in their body, waiting for `count`.
async function sentWith(gw, marker, { count = 1, timeoutMs = 5_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await gw.upstream.requests()).filter((r) => JSON.stringify(r.body).includes(marker));
    if (found.length >= count || Date.now() > deadline) return found;
    await sleep(50);
  }
}

// What a streamed response gave: its event types, the text of its deltas, the final response.
async function collect(stream) {
  const types = [];
  let text = '';
  let args = '';
  let final = null;
  let sequence = -1;
  for await (const event of stream) {
    types.push(event.type);
    assert.equal(event.sequence_number, sequence + 1, `sequence numbers count up: ${event.type}`);
    sequence = event.sequence_number;
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.function_call_arguments.delta') args += event.delta;
    if (event.type === 'response.completed' || event.type === 'response.failed') final = event.response;
  }
  return { types, text, args, final };
}

async function turnRecords(gw) {
  const reply = await gw.api('/v1/turns?limit=100');
  assert.equal(reply.status, 200, reply.text);
  return reply.json.turns;
}

for (const [kind, upstream] of Object.entries(KINDS)) {
  const gw = gateways[kind];

  describe(`the Responses API with a ${kind} upstream`, () => {
    test('responses.create: the answer as a Response object, the memory in the upstream request, usage logged', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const put = await gw.api('/v1/profile/persona', { method: 'PUT', body: { content: '# Persona\nYou are Juniper.' } });
      assert.equal(put.status, 200, put.text);
      const marker = uniqueId('plain');
      const client = openaiClient(gw);
      const response = await client.responses.create({
        model: 'companion',
        instructions: 'Answer briefly.',
        input: `${marker} hello there`,
        metadata: { suite: 'e2e' },
      });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, 'companion');
      assert.match(response.id, /^resp_/);
      assert.deepEqual(response.metadata, { suite: 'e2e' });
      assert.equal(response.output_text, `echo: ${marker} hello there`);
      assert.equal(outputText(response), response.output_text);
      assert.ok(response.usage.input_tokens > 0, JSON.stringify(response.usage));
      assert.equal(typeof response.usage.input_tokens_details.cached_tokens, 'number');

      const [sent] = await sentWith(gw, marker);
      assert.equal(sent.path, upstream.path);
      const wire = JSON.stringify(sent.body);
      assert.ok(wire.includes('Answer briefly.'), 'the instructions reach the upstream');
      assert.ok(wire.includes('You are Juniper.'), 'the profile is injected');
      assert.ok(wire.includes('<turn_context>'), 'the per-turn block is there');
      // Stable prefix first, the per-turn block last: Anthropic's system is a field of its own.
      const items = sent.body.messages ?? sent.body.input; // passed through, a string input stays one
      const turns = JSON.stringify(items);
      const last = JSON.stringify(typeof items === 'string' ? items : items.at(-1));
      assert.ok(last.includes('<turn_context>'), 'the per-turn block is in the last message');
      if (sent.body.system) assert.ok(JSON.stringify(sent.body.system).includes('You are Juniper.'));
      else if (kind === 'responses') assert.match(sent.body.instructions, /^Answer briefly\.\n\n[\s\S]*You are Juniper\./, 'the profile after the instructions');
      else assert.ok(turns.indexOf('You are Juniper.') < turns.indexOf('<turn_context>'), 'the profile before the per-turn block');
      const tools = (sent.body.tools ?? []).map((tool) => tool.function?.name ?? tool.name);
      assert.deepEqual(tools, ['recall'], 'cilia offers its recall tool');

      const record = (await turnRecords(gw)).find((r) => r.endpoint === 'responses' && r.http_status === 200);
      assert.ok(record, 'the turn is recorded');
      assert.ok(record.input_tokens > 0);
    });

    test('streaming: the typed events in order, ending with response.completed', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('stream');
      const client = openaiClient(gw);
      const { types, text, final } = await collect(
        await client.responses.create({ model: 'companion', input: `${marker} [[reply:one two three 🌸]] [[reasoning]]`, stream: true }),
      );
      assert.equal(types[0], 'response.created');
      assert.equal(types[1], 'response.in_progress');
      assert.equal(types.at(-1), 'response.completed');
      for (const type of ['response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
        'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
        assert.ok(types.includes(type), `${type} in ${types.join(' ')}`);
      }
      if (kind !== 'anthropic') assert.ok(types.includes('response.reasoning_summary_text.delta'), 'reasoning as its summary');
      assert.equal(text, 'one two three 🌸');
      assert.equal(outputText(final), text);
      assert.ok(final.usage.input_tokens > 0);
      // Reasoning tokens as the upstream counted them (Anthropic reports none), in the answer and the turn record.
      const reasoning = final.usage.output_tokens_details.reasoning_tokens;
      if (kind === 'anthropic') assert.equal(reasoning, 0);
      else assert.ok(reasoning > 0 && reasoning < final.usage.output_tokens, JSON.stringify(final.usage));
      const record = (await turnRecords(gw)).find((r) => r.endpoint === 'responses' && r.streamed && r.reasoning_tokens === reasoning);
      assert.ok(record, 'the streamed turn records its reasoning tokens');
      const kept = await client.responses.retrieve(final.id);
      assert.equal(outputText(kept), text, 'GET /v1/responses/{id} gives it back');
    });

    for (const stream of [false, true]) {
      test(`function tools${stream ? ', streaming' : ''}: the call goes to the client, its output comes back through previous_response_id`, async (t) => {
        if (gw.skip) return t.skip(gw.skip);
        const marker = uniqueId('tool');
        const client = openaiClient(gw);
        const body = { model: 'companion', tools: [WEATHER_TOOL], input: `${marker} weather? [[tool:get_weather:{"city":"Paris"}]]` };
        let call;
        let first;
        if (stream) {
          const got = await collect(await client.responses.create({ ...body, stream: true }));
          assert.ok(got.types.includes('response.function_call_arguments.delta'), got.types.join(' '));
          assert.ok(got.types.includes('response.function_call_arguments.done'));
          assert.equal(got.args, '{"city":"Paris"}');
          first = got.final;
        } else {
          first = await client.responses.create(body);
        }
        call = first.output.find((item) => item.type === 'function_call');
        assert.ok(call, JSON.stringify(first.output));
        assert.equal(call.name, 'get_weather');
        assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
        assert.match(call.call_id, upstream.toolCallId);

        const second = await client.responses.create({
          model: 'companion',
          tools: [WEATHER_TOOL],
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: `sunny ${marker}` }],
        });
        assert.equal(second.output_text, `tool result: sunny ${marker}`);
        assert.equal(second.previous_response_id, first.id);
        const [sent] = await sentWith(gw, `sunny ${marker}`);
        const wire = JSON.stringify(sent.body);
        assert.ok(wire.includes(`${marker} weather?`), 'the chained request carries the question it continues');
        assert.ok(wire.includes(call.call_id), 'and the call it answers');
      });
    }

    test('previous_response_id chains: the history reaches the upstream, and the turns are one conversation', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const name = uniqueId('Ada');
      const conversation = uniqueId('chain');
      const client = openaiClient(gw);
      const first = await client.responses.create({ model: 'companion', input: `My name is ${name}.` }, inConversation(conversation));
      const second = await client.responses.create({ model: 'companion', previous_response_id: first.id, input: 'And the weather?' });
      const marker = uniqueId('third');
      const third = await client.responses.create({ model: 'companion', previous_response_id: second.id, input: `${marker} what is my name?` });
      assert.equal(third.status, 'completed');
      const [sent] = await sentWith(gw, marker);
      const wire = JSON.stringify(sent.body);
      assert.ok(wire.includes(`My name is ${name}.`), 'the first turn is in the third request');
      assert.ok(wire.includes('echo: And the weather?'), 'and the second answer');
      const stored = await storedMessages(gw, conversation);
      assert.deepEqual(stored.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    });

    test('cilia runs its own recall call inside; the client gets one answer and never sees it', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const pet = `Quenelle${uniqueId('x').slice(2)}`;
      await openaiClient(gw).responses.create({ model: 'companion', input: `My cat ${pet} sleeps in the blue laundry basket.` });
      assert.ok((await waitUntilSearchable(gw, pet, 'laundry basket')).length, 'the fact is searchable');
      const marker = uniqueId('recall');
      const answer = await openaiClient(gw).responses.create({
        model: 'companion',
        tools: [WEATHER_TOOL],
        input: `${marker} my cat? [[tool:recall:{"query":"${pet}"}]]`,
      });
      assert.deepEqual(answer.output.filter((item) => item.type === 'function_call'), [], 'no recall call reaches the client');
      assert.match(answer.output_text, /^tool result: /);
      assert.ok(answer.output_text.includes('laundry basket'), answer.output_text.slice(0, 300));
    });

    test('a fact told in one chat reaches the upstream in a later new chat', async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const city = `Reykjavik${uniqueId('x').slice(2)}`;
      const client = openaiClient(gw);
      await client.responses.create({ model: 'companion', input: `My sister Odalys moved to ${city} in March.` });
      assert.ok((await waitUntilSearchable(gw, `Odalys ${city}`, city)).length, 'the fact is searchable');
      const marker = uniqueId('ask');
      await client.responses.create({ model: 'companion', input: `${marker} Where does my sister Odalys live now?` });
      const [sent] = await sentWith(gw, marker);
      const wire = JSON.stringify(sent.body);
      assert.ok(wire.includes(city), `the new chat's upstream request holds the fact: ${wire.slice(0, 600)}`);
    });
  });
}

describe('a Responses client passed through to an upstream that speaks Responses', () => {
  const gw = gateways.responses;
  // What Codex sends besides its input: cilia passes it on as it is.
  const CODEX_FIELDS = {
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'codex-session-0199',
    text: { verbosity: 'low' },
    service_tier: 'flex',
    parallel_tool_calls: false,
    reasoning: { effort: 'high', summary: 'auto' },
    store: false,
  };

  for (const stream of [false, true]) {
    const streamed = stream ? ', streaming' : '';
    test(`encrypted reasoning, include, prompt_cache_key, text.verbosity and built-in tools reach the upstream unchanged${streamed}`, async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const marker = uniqueId('codex');
      const client = openaiClient(gw);
      const theirs = { type: 'reasoning', id: 'rs_client_1', summary: [], encrypted_content: `enc-client-${marker}` };
      const input = [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: read-only.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in this folder?' }] },
        theirs,
        { type: 'function_call', call_id: 'call_ls', name: 'shell', arguments: '{"command":["ls"]}' },
        { type: 'function_call_output', call_id: 'call_ls', output: 'a.txt' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${marker} and now? [[reasoning]]` }] },
      ];
      const tools = [{ type: 'function', name: 'shell', parameters: { type: 'object', properties: {} } }, { type: 'web_search' }];
      const body = { model: 'companion', instructions: 'You are Codex.', input, tools, ...CODEX_FIELDS };
      const response = stream ? (await collect(await client.responses.create({ ...body, stream: true }))).final : await client.responses.create(body);
      assert.equal(response.status, 'completed');
      assert.equal(response.instructions, 'You are Codex.', "cilia's memory is not shown back");
      assert.deepEqual(response.tools.map((tool) => tool.name ?? tool.type), ['shell', 'web_search'], 'nor its recall tool');
      const mine = response.output.find((item) => item.type === 'reasoning');
      assert.match(mine?.encrypted_content ?? '', /^enc-fake:/, 'the upstream\'s encrypted reasoning reaches the client');

      const [sent] = await sentWith(gw, marker);
      assert.equal(sent.path, '/v1/responses');
      for (const [field, value] of Object.entries(CODEX_FIELDS)) assert.deepEqual(sent.body[field], value, field);
      assert.equal(sent.body.stream, stream);
      assert.deepEqual(sent.body.input.slice(0, -1), input.slice(0, -1), 'every item before the last as the client sent it');
      assert.deepEqual(sent.body.input[2], theirs, 'the encrypted reasoning item untouched');
      const last = sent.body.input.at(-1).content;
      assert.deepEqual(last[0], input.at(-1).content[0], 'the user text keeps its bytes');
      assert.match(last[1].text, /^<turn_context>/, 'the per-turn block after it');
      assert.deepEqual(sent.body.tools.map((tool) => tool.name ?? tool.type), ['shell', 'web_search', 'recall'], 'built-in tools go up, recall last');
      assert.match(sent.body.instructions, /^You are Codex\.\n\n<memory_guide>/, 'the stable memory after the instructions');

      // Codex's next request sends the reasoning back; it reaches the upstream as the upstream wrote it.
      const marker2 = uniqueId('again');
      const again = [...input, ...response.output, { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${marker2} [[recalled]]` }] }];
      const next = await client.responses.create({ ...body, input: again });
      assert.equal(next.output_text, `reasoning sent back: ${JSON.stringify([theirs.encrypted_content, `Thinking about: ${marker} and now? [[reasoning]]`.slice(0, 'Thinking about: '.length + 50)])}`);
      const [resent] = await sentWith(gw, marker2);
      assert.equal(resent.body.instructions, sent.body.instructions, 'the stable prefix is the same bytes on the next turn');
      assert.deepEqual(resent.body.tools, sent.body.tools);
    });

    test(`a fact told in one chat reaches the upstream in a later new chat${streamed}`, async (t) => {
      if (gw.skip) return t.skip(gw.skip);
      const city = `Tromso${uniqueId('x').slice(2)}`;
      const brother = stream ? 'Bartholomew' : 'Leopold';
      const client = openaiClient(gw);
      await client.responses.create({ model: 'companion', input: `My brother ${brother} moved to ${city} last spring.`, store: false });
      assert.ok((await waitUntilSearchable(gw, `${brother} ${city}`, city)).length, 'the fact is searchable');
      const marker = uniqueId('ask');
      const question = `${marker} Which city did ${brother} move to?`;
      const body = { model: 'companion', input: [{ role: 'user', content: question }], ...CODEX_FIELDS };
      if (stream) await collect(await client.responses.create({ ...body, stream: true }));
      else await client.responses.create(body);
      const [sent] = await sentWith(gw, marker);
      assert.equal(sent.path, '/v1/responses');
      assert.ok(JSON.stringify(sent.body).includes(city), `the new chat's upstream request holds the fact: ${JSON.stringify(sent.body).slice(0, 600)}`);
      assert.equal(sent.body.prompt_cache_key, CODEX_FIELDS.prompt_cache_key);
    });
  }

  test('a recall round runs inside cilia and the client sees one response, streamed or not', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const pet = `Brioche${uniqueId('x').slice(2)}`;
    const client = openaiClient(gw);
    await client.responses.create({ model: 'companion', input: `My dog ${pet} hides socks under the sofa.` });
    assert.ok((await waitUntilSearchable(gw, pet, 'socks under the sofa')).length, 'the fact is searchable');
    for (const stream of [false, true]) {
      const body = { model: 'companion', input: `${uniqueId('r')} my dog? [[tool:recall:{"query":"${pet}"}]]`, ...CODEX_FIELDS };
      const response = stream ? (await collect(await client.responses.create({ ...body, stream: true }))).final : await client.responses.create(body);
      assert.deepEqual(response.output.filter((item) => item.type === 'function_call'), [], 'no recall call reaches the client');
      assert.match(outputText(response), /^tool result: .*socks under the sofa/s);
      assert.ok(response.usage.input_tokens > 0);
    }
  });
});

describe('the Responses API routes and refusals', () => {
  const gw = gateways.chat;

  test('built-in tools, background mode and an unknown previous_response_id are refused clearly', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const client = openaiClient(gw);
    await assert.rejects(client.responses.create({ model: 'companion', input: 'hi', tools: [{ type: 'web_search' }] }), (error) => {
      assert.equal(error.status, 400);
      assert.match(error.message, /tools\[0\]\.type.*web_search/);
      return true;
    });
    await assert.rejects(client.responses.create({ model: 'companion', input: 'hi', background: true }), (error) => error.status === 400);
    await assert.rejects(client.responses.create({ model: 'companion', input: 'hi', previous_response_id: 'resp_nope' }), (error) => {
      assert.equal(error.status, 404);
      assert.match(error.message, /previous_response_id/);
      return true;
    });
  });

  test('GET, DELETE and cancel of a kept response; store: false keeps nothing', async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const client = openaiClient(gw);
    const kept = await client.responses.create({ model: 'companion', input: 'keep me' });
    assert.equal((await client.responses.retrieve(kept.id)).id, kept.id);
    await assert.rejects(client.responses.cancel(kept.id), (error) => error.status === 400 && /background/.test(error.message));
    await client.responses.delete(kept.id);
    await assert.rejects(client.responses.retrieve(kept.id), (error) => error.status === 404);
    const unkept = await client.responses.create({ model: 'companion', input: 'forget me', store: false });
    assert.equal(unkept.store, false);
    await assert.rejects(client.responses.retrieve(unkept.id), (error) => error.status === 404);
  });
});

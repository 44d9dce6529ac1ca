// The archive through the REST API: ingest, listing, search and recall, filters, forget,
// bad bodies and durability across a crash. Each test runs its own server on its own data dir.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  assertOpenAIError,
  assertSameInstant,
  listAll,
  listItems,
  messageIdOf,
  conversationIdOf,
  nextCursor,
} from './lib/replies.mjs';
import { dataDirForTest, serverForTest, startServer } from './lib/server.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Distinct filler sentences, so long messages are long without sharing words with the facts.
const FILLER = [
  'The morning bus was late again, so I walked along the river instead.',
  'My neighbour keeps repainting her fence in a slightly different shade of green.',
  'We argued for an hour about whether the library closes at six or seven.',
  'The printer at work jammed twice before lunch and nobody knew how to fix it.',
  'I finally sorted the old photographs into boxes labelled by year.',
  'The heating in the flat makes a ticking noise that keeps me awake.',
  'Someone left a bicycle chained to our gate for three days now.',
  'The bakery on the corner switched to sourdough and raised every price.',
  'I tried a new route to the office that goes past the old cinema.',
  'My sister sent a voice note that was mostly her cat meowing.',
  'The weather forecast promised sun and delivered a cold drizzle.',
  'Our team meeting moved to Thursday because the manager is travelling.',
];

function longText(seed, minChars, planted = '') {
  const sentences = [];
  let length = 0;
  for (let i = 0; length < minChars; i++) {
    const sentence = `${FILLER[(seed + i) % FILLER.length]} (${seed}.${i})`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  if (planted) sentences.splice(Math.floor(sentences.length / 2), 0, planted);
  return sentences.join(' ');
}

const TRAINING = {
  conversation_id: 'trip-2023-05',
  title: 'Running plans',
  messages: [
    { id: 'D1:1', role: 'user', name: '阿杰', content: '报上了天府锦江半马！名额五分钟就没了，还好我手快😎', created_at: '2023-05-08T13:56:00Z' },
    { id: 'D1:2', role: 'assistant', name: 'Coach', content: 'Congratulations 🎉 is this your first race of that distance?', created_at: '2023-05-08T13:56:07Z' },
    { id: 'D1:3', role: 'user', name: '阿杰', content: longText(1, 1200, 'My recovery drink after long runs is tart cherry juice with a pinch of salt.'), created_at: '2023-05-08T13:57:00Z' },
    { id: 'D1:4', role: 'user', name: '阿杰', content: 'Also, I adopted a greyhound named Biscuit last weekend.', created_at: '2023-05-08T13:58:00Z' },
  ],
};

async function ingest(server, body, { sync = true } = {}) {
  return server.api(`/v1/ingest/messages${sync ? '?sync=true' : ''}`, { body });
}

async function ingestOk(server, body) {
  const reply = await ingest(server, body);
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function search(server, request, endpoint = '/v1/search') {
  const reply = await server.api(endpoint, { body: request });
  assert.equal(reply.status, 200, `${endpoint} ${JSON.stringify(request)}: ${reply.text}`);
  assert.ok(Array.isArray(reply.json.results), reply.text);
  return reply.json.results;
}

const quotes = (results, id) => results.filter((r) => r.message_ids.includes(id));
const dayOf = (time) => new Date(time).toISOString().slice(0, 10);

test('ingest stores every message once and reports what it stored', async (t) => {
  const server = await serverForTest(t);
  const first = await ingestOk(server, TRAINING);
  assert.deepEqual(
    { conversation_id: first.conversation_id, stored: first.stored, duplicates: first.duplicates },
    { conversation_id: 'trip-2023-05', stored: 4, duplicates: 0 },
  );
  const again = await ingestOk(server, TRAINING);
  assert.equal(again.stored, 0);
  assert.equal(again.duplicates, 4);
});

test('a known id with different content is a 409 naming the id, and nothing of that request is stored', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, TRAINING);
  const conflicting = {
    conversation_id: 'trip-2023-05',
    messages: [
      { id: 'D1:9', role: 'user', content: 'A brand new message about a marmalade sandwich.', created_at: '2023-05-09T08:00:00Z' },
      { id: 'D1:4', role: 'user', content: 'Also, I adopted a whippet named Biscuit.', created_at: '2023-05-08T13:58:00Z' },
    ],
  };
  const reply = await ingest(server, conflicting);
  const error = assertOpenAIError(reply, 409);
  assert.match(error.message, /D1:4/);

  const { items } = await listAll(server, '/v1/conversations/trip-2023-05/messages');
  assert.deepEqual(items.map(messageIdOf), ['D1:1', 'D1:2', 'D1:3', 'D1:4']);
  assert.ok(!items.some((m) => JSON.stringify(m).includes('whippet')));
  const results = await search(server, { query: 'marmalade sandwich' });
  assert.ok(!results.some((r) => r.message_ids.includes('D1:9') || r.text.includes('marmalade')), JSON.stringify(results));
});

test('conversations are listed and their messages come in pages', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, TRAINING);
  await ingestOk(server, {
    conversation_id: 'second',
    messages: [{ id: 'x1', role: 'user', content: 'hello there', created_at: '2023-06-01T09:00:00Z' }],
  });

  const conversations = listItems((await server.api('/v1/conversations')).json);
  assert.deepEqual(conversations.map(conversationIdOf).sort(), ['second', 'trip-2023-05']);

  const firstPage = await server.api('/v1/conversations/trip-2023-05/messages?limit=2');
  assert.equal(firstPage.status, 200, firstPage.text);
  assert.equal(listItems(firstPage.json).length, 2);
  assert.ok(nextCursor(firstPage.json), `no cursor on a partial page: ${firstPage.text}`);

  const { items, pages } = await listAll(server, '/v1/conversations/trip-2023-05/messages', { pageLimit: 2 });
  assert.deepEqual(pages.map((p) => p.length), [2, 2]);
  assert.deepEqual(items.map(messageIdOf), ['D1:1', 'D1:2', 'D1:3', 'D1:4']);
  const emoji = items.find((m) => messageIdOf(m) === 'D1:1');
  assert.equal(emoji.content, TRAINING.messages[0].content, 'content comes back verbatim');
  const long = items.find((m) => messageIdOf(m) === 'D1:3');
  assert.equal(long.content, TRAINING.messages[2].content, 'a long message comes back whole');
});

for (const endpoint of ['/v1/search', '/v1/recall']) {
  test(`${endpoint} finds a fact by an English and by a Chinese query, quoted with date and speaker`, async (t) => {
    const server = await serverForTest(t);
    await ingestOk(server, TRAINING);

    for (const [query, id] of [
      ['greyhound Biscuit', 'D1:4'],
      ['tart cherry juice', 'D1:3'],
      ['半马', 'D1:1'],
    ]) {
      const results = await search(server, { query }, endpoint);
      const hit = quotes(results, id)[0];
      assert.ok(hit, `"${query}" did not find ${id}: ${JSON.stringify(results).slice(0, 500)}`);
      assert.equal(hit.layer, 'archive');
      assert.equal(hit.conversation_id, 'trip-2023-05');
      const first = TRAINING.messages.find((m) => m.id === hit.message_ids[0]);
      assert.ok(first, `message_ids are the caller's ids: ${hit.message_ids}`);
      assertSameInstant(hit.created_at, first.created_at, 'created_at of the first message');
      assert.match(hit.text, /^\[2023-05-08 · Running plans\]\n/);
      assert.match(hit.text, /(^|\n)(阿杰|Coach): /);
      assert.equal(typeof hit.id, 'string');
      assert.equal(typeof hit.score, 'number');
    }
  });
}

test('exact search with a two-character Chinese query finds the verbatim text', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, TRAINING);
  const results = await search(server, { query: '半马', exact: true });
  assert.ok(quotes(results, 'D1:1').length > 0, JSON.stringify(results));
  for (const result of results) assert.ok(result.text.includes('半马'), result.text);
  assert.equal((await search(server, { query: '全马', exact: true })).length, 0);
});

test('after and before are inclusive dates', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, TRAINING);
  const found = async (filter) => quotes(await search(server, { query: 'greyhound Biscuit', ...filter }), 'D1:4').length > 0;
  assert.equal(await found({ after: '2023-05-08' }), true);
  assert.equal(await found({ before: '2023-05-08' }), true);
  assert.equal(await found({ after: '2023-05-08', before: '2023-05-08' }), true);
  assert.equal(await found({ after: '2023-05-09' }), false);
  assert.equal(await found({ before: '2023-05-07' }), false);
  assert.equal(await found({ after: '2023-05-08T14:00:00Z' }), false);
});

test('conversation_id and limit narrow the results', async (t) => {
  const server = await serverForTest(t);
  for (const [cid, day] of [['breakfast-a', '2023-07-01'], ['breakfast-b', '2023-07-02'], ['breakfast-c', '2023-07-03']]) {
    await ingestOk(server, {
      conversation_id: cid,
      messages: [{ id: 'm1', role: 'user', content: `Pancakes with blueberries for breakfast in ${cid}.`, created_at: `${day}T08:00:00Z` }],
    });
  }
  const all = await search(server, { query: 'pancakes blueberries' });
  assert.deepEqual([...new Set(all.map((r) => r.conversation_id))].sort(), ['breakfast-a', 'breakfast-b', 'breakfast-c']);

  const onlyB = await search(server, { query: 'pancakes blueberries', conversation_id: 'breakfast-b' });
  assert.ok(onlyB.length > 0);
  assert.ok(onlyB.every((r) => r.conversation_id === 'breakfast-b'));

  assert.equal((await search(server, { query: 'pancakes blueberries', limit: 1 })).length, 1);
});

test('at most two windows per conversation and day, unless the conversation is asked for', async (t) => {
  const server = await serverForTest(t);
  const messages = [];
  for (let i = 0; i < 5; i++) {
    messages.push({
      id: `k${i}`,
      role: 'user',
      content: longText(10 + i * 3, 1400, `Note ${i}: the kiwi on the balcony grew another leaf today.`),
      created_at: `2023-08-15T0${i + 1}:00:00Z`,
    });
  }
  await ingestOk(server, { conversation_id: 'garden', messages });
  await ingestOk(server, {
    conversation_id: 'market',
    messages: [{ id: 'm1', role: 'user', content: 'Bought kiwi at the market.', created_at: '2023-08-15T12:00:00Z' }],
  });

  const everywhere = await search(server, { query: 'kiwi', limit: 10 });
  const gardenThatDay = everywhere.filter((r) => r.conversation_id === 'garden' && dayOf(r.created_at) === '2023-08-15');
  assert.ok(gardenThatDay.length >= 1, JSON.stringify(everywhere).slice(0, 500));
  assert.ok(gardenThatDay.length <= 2, `${gardenThatDay.length} results from one conversation and day`);

  const inGarden = await search(server, { query: 'kiwi', limit: 10, conversation_id: 'garden' });
  assert.ok(inGarden.length > 2, `only ${inGarden.length} results with conversation_id given`);
});

test('"yesterday" in the query is resolved against now', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, {
    conversation_id: 'teapot-1',
    messages: [{ id: 'a', role: 'user', content: 'I bought a cast iron teapot at the flea market.', created_at: '2024-03-10T09:00:00Z' }],
  });
  await ingestOk(server, {
    conversation_id: 'teapot-2',
    messages: [{ id: 'b', role: 'user', content: 'The teapot cracked when I poured boiling water in it.', created_at: '2024-03-14T09:00:00Z' }],
  });
  const query = 'what did I say yesterday about the teapot';
  const dayAfterSecond = await search(server, { query, now: '2024-03-15T10:00:00Z' });
  assert.ok(dayAfterSecond.length > 0);
  assert.ok(dayAfterSecond.every((r) => dayOf(r.created_at) === '2024-03-14'), JSON.stringify(dayAfterSecond));
  const dayAfterFirst = await search(server, { query, now: '2024-03-11T10:00:00Z' });
  assert.ok(dayAfterFirst.length > 0);
  assert.ok(dayAfterFirst.every((r) => dayOf(r.created_at) === '2024-03-10'), JSON.stringify(dayAfterFirst));
});

test('forgetting a message removes it from search, exact search and listings', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, {
    conversation_id: 'secrets',
    messages: [
      { id: 's1', role: 'user', content: 'The weather is nice for a walk today.', created_at: '2023-09-01T10:00:00Z' },
      { id: 's2', role: 'user', content: 'My old door code was quokkafest 4471, 门禁密码也是它。', created_at: '2023-09-01T10:01:00Z' },
      { id: 's3', role: 'assistant', content: 'Noted. Enjoy your walk in the nice weather.', created_at: '2023-09-01T10:02:00Z' },
    ],
  });
  assert.ok(quotes(await search(server, { query: 'quokkafest' }), 's2').length > 0, 'found before forgetting');

  const del = await server.api('/v1/conversations/secrets/messages/s2', { method: 'DELETE' });
  assert.ok(del.status >= 200 && del.status < 300, del.text);

  for (const request of [{ query: 'quokkafest' }, { query: 'quokkafest', exact: true }, { query: '门禁密码', exact: true }]) {
    const results = await search(server, request);
    assert.ok(!results.some((r) => r.message_ids.includes('s2') || r.text.includes('quokkafest')), JSON.stringify(results));
  }
  assert.equal((await search(server, { query: 'quokkafest', exact: true })).length, 0);
  const { items } = await listAll(server, '/v1/conversations/secrets/messages');
  assert.deepEqual(items.map(messageIdOf), ['s1', 's3']);
  assert.ok(quotes(await search(server, { query: 'walk weather' }), 's1').length > 0, 'the rest is still found');
});

test('forgetting a conversation removes all of it', async (t) => {
  const server = await serverForTest(t);
  await ingestOk(server, TRAINING);
  await ingestOk(server, {
    conversation_id: 'keep',
    messages: [{ id: 'k', role: 'user', content: 'My greyhound friend lives in Leeds.', created_at: '2023-05-10T10:00:00Z' }],
  });
  const del = await server.api('/v1/conversations/trip-2023-05', { method: 'DELETE' });
  assert.ok(del.status >= 200 && del.status < 300, del.text);

  const results = await search(server, { query: 'greyhound Biscuit' });
  assert.ok(results.every((r) => r.conversation_id === 'keep'), JSON.stringify(results));
  assert.equal((await search(server, { query: '半马', exact: true })).length, 0);
  const conversations = listItems((await server.api('/v1/conversations')).json);
  assert.deepEqual(conversations.map(conversationIdOf), ['keep']);
  const messages = await server.api('/v1/conversations/trip-2023-05/messages');
  assert.ok(messages.status === 404 || listItems(messages.json).length === 0, messages.text);
});

test('bad ingest bodies are 400s that say what is wrong', async (t) => {
  const server = await serverForTest(t);
  assertOpenAIError(await ingest(server, '{"conversation_id": "x", "messages": ['), 400);

  const noConversation = assertOpenAIError(
    await ingest(server, { messages: [{ role: 'user', content: 'hi' }] }),
    400,
  );
  assert.match(noConversation.message, /conversation_id/);

  const badRole = assertOpenAIError(
    await ingest(server, { conversation_id: 'x', messages: [{ role: 'robot', content: 'hi' }] }),
    400,
  );
  assert.match(badRole.message, /messages\[0\]\.role/);

  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"conversation_id": "x", "messages": [{"role": "user", "content": "caf'),
    Buffer.from([0xc3, 0x28, 0xff]),
    Buffer.from('"}]}'),
  ]);
  assertOpenAIError(await ingest(server, invalidUtf8), 400);

  const tooMany = assertOpenAIError(await server.api('/v1/search', { body: { query: 'hi', limit: 1000 } }), 400);
  assert.match(tooMany.message, /limit/);
  assertOpenAIError(await server.api('/v1/search', { body: { limit: 5 } }), 400);

  const conversations = listItems((await server.api('/v1/conversations')).json);
  assert.equal(conversations.length, 0, 'nothing was stored by bad requests');
});

test('acknowledged messages survive kill -9', async (t) => {
  const dataDir = await dataDirForTest(t);
  const messages = Array.from({ length: 50 }, (_, i) => ({
    id: `d${i}`,
    role: i % 2 ? 'assistant' : 'user',
    content: `Durable message number ${i} about the lighthouse keeper 灯塔${i}.`,
    created_at: new Date(Date.UTC(2023, 9, 1, 12, 0, i)).toISOString(),
  }));
  const first = await startServer({ dataDir });
  try {
    const reply = await ingest(first, { conversation_id: 'crash', messages }, { sync: false });
    assert.equal(reply.status, 200, reply.text);
  } finally {
    await first.kill();
  }

  const second = await serverForTest(t, { dataDir });
  const { items } = await listAll(second, '/v1/conversations/crash/messages');
  assert.deepEqual(items.map(messageIdOf), messages.map((m) => m.id));

  // The index is derived: after the restart the messages become searchable again.
  let found = false;
  for (let attempt = 0; attempt < 100 && !found; attempt++) {
    found = (await search(second, { query: 'lighthouse keeper' })).length > 0;
    if (!found) await sleep(200);
  }
  assert.ok(found, 'messages not searchable 20 s after the restart');
});

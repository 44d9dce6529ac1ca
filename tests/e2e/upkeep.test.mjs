// Memory that looks after itself, through the real binary: the extraction job and the nightly
// job run against the fake upstream's scripted answers (POST /_script), and what they wrote is
// read back over REST — excerpts, candidates, job runs, the boot pack — then forgotten.
import assert from 'node:assert/strict';
import test from 'node:test';

import { openGateway, uniqueId } from './lib/gateway.mjs';

// The scheduler stays out of the way: every run here is started by the test.
const gw = await openGateway({ env: { CILIA_JOBS_ENABLED: 'false' } });
test.after(() => gw.stop());

// Yesterday in the owner's zone (UTC for every test server: lib/server.mjs), at noon.
function yesterdayNoon() {
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  return { day, at: (minute) => `${day}T12:${String(minute).padStart(2, '0')}:00Z` };
}

const MESSAGES = [
  ['u1', 'user', '跟你说个大新闻，我下个月就要搬去北京了，工作已经定下来了。'],
  ['a1', 'assistant', '恭喜你！北京的新工作是做什么的？'],
  ['u2', 'user', '在一家做机器人的公司当工程师。对了，我对花生过敏，以后推荐吃的记得避开。'],
  ['a2', 'assistant', '记住了，我会避开花生。搬家需要帮忙列清单吗？'],
  ['u3', 'user', '好呀，周末我们一起列。'],
  ['a3', 'assistant', '好的，周末见。'],
];

const item = (content, quote, extra = {}) => ({ date: yesterdayNoon().day, content, quote, type: 'fact', fact_key: null, confidence: 0.92, ...extra });

const EXTRACTION = {
  match: 'You excerpt memories',
  reply: JSON.stringify({
    items: [
      item('她下个月搬去北京，工作已经定了。', '我下个月就要搬去北京了', { type: 'event', fact_key: 'home_city' }),
      item('她对花生过敏。', '我对花生过敏，以后推荐吃的记得避开', { type: 'rule' }),
      // The quote is nowhere in the messages: dropped.
      item('她养了一只猫。', '我家的猫叫小橘，很黏人'),
      // A paraphrase of what was said is no quote: dropped.
      item('她在机器人公司工作。', '我在机器人公司做工程师的工作'),
      // Too unsure to become an excerpt: the review queue.
      item('周末要一起列搬家清单。', '好呀，周末我们一起列', { type: 'plan', confidence: 0.5 }),
    ],
  }),
};

test('extraction keeps what the messages say verbatim, drops the rest, and queues the unsure', async (t) => {
  if (gw.skip) return t.skip(gw.skip);
  const conversation = uniqueId('upkeep');
  const { at } = yesterdayNoon();
  await gw.upstream.reset();
  await gw.upstream.script([EXTRACTION]);
  const ingest = await gw.api('/v1/ingest/messages?sync=true', {
    body: {
      conversation_id: conversation,
      messages: MESSAGES.map(([id, role, content], i) => ({ id, role, content, created_at: at(i) })),
    },
  });
  assert.equal(ingest.status, 200, ingest.text);

  const run = await gw.api('/v1/jobs/extract/run', { method: 'POST', timeoutMs: 60_000 });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.json.outcome, 'ok', run.text);
  assert.equal(run.json.detail.items_added, 2, run.text);
  assert.equal(run.json.detail.items_dropped, 2, run.text);
  assert.equal(run.json.detail.items_candidates, 1, run.text);

  const memories = await gw.api('/v1/memories?status=active&limit=100');
  assert.equal(memories.status, 200, memories.text);
  const mine = memories.json.memories.filter((m) => m.conversation_id === conversation);
  assert.deepEqual(mine.map((m) => m.content).sort(), ['她下个月搬去北京，工作已经定了。', '她对花生过敏。'].sort());
  const said = new Map(MESSAGES.map(([id, , content]) => [id, content]));
  for (const memory of mine) {
    assert.equal(memory.author, 'extractor');
    assert.equal(memory.message_ids.length, 1);
    assert.ok(said.get(memory.message_ids[0]).includes(memory.quote), `${memory.quote} is not verbatim`);
  }

  const candidates = await gw.api('/v1/candidates');
  assert.equal(candidates.status, 200, candidates.text);
  const queued = candidates.json.candidates.filter((c) => c.quote === '好呀，周末我们一起列');
  assert.equal(queued.length, 1, candidates.text);
  const approved = await gw.api(`/v1/candidates/${queued[0].id}/approve`, { method: 'POST' });
  assert.equal(approved.status, 200, approved.text);

  // The batch succeeded: a second run sends it to the model no more.
  const asked = (await gw.upstream.requests()).length;
  const again = await gw.api('/v1/jobs/extract/run', { method: 'POST', timeoutMs: 60_000 });
  assert.equal(again.json.outcome, 'ok', again.text);
  assert.equal((await gw.upstream.requests()).length, asked);
  const runs = await gw.api('/v1/jobs?job=extract');
  assert.ok(runs.json.runs.length >= 2, runs.text);

  // Forget the message a memory quotes: the memory goes with it.
  const peanut = mine.find((m) => m.quote.includes('花生'));
  const forgot = await gw.api(`/v1/conversations/${conversation}/messages/${peanut.message_ids[0]}`, { method: 'DELETE' });
  assert.equal(forgot.status, 200, forgot.text);
  assert.equal((await gw.api(`/v1/memories/${peanut.id}`)).status, 404);
  const left = (await gw.api('/v1/memories?status=active&limit=100')).json.memories.filter((m) => m.conversation_id === conversation);
  assert.deepEqual(left.map((m) => m.content).sort(), ['周末要一起列搬家清单。', '她下个月搬去北京，工作已经定了。'].sort());
});

test('the nightly job writes the day log and digest the boot pack returns, and a forget takes them back', async (t) => {
  if (gw.skip) return t.skip(gw.skip);
  // A namespace of its own: the day's log reads every conversation of the day.
  const own = await openGateway({ env: { CILIA_JOBS_ENABLED: 'false' } });
  t.after(() => own.stop());
  const conversation = uniqueId('nightly');
  const { day, at } = yesterdayNoon();
  const dayLog = { title: '搬家', entries: [{ text: '她说下个月搬去北京', messages: [1, 2] }] };
  await own.upstream.script([
    { match: 'You excerpt memories', reply: '{"items": []}' },
    { match: "day's log", reply: JSON.stringify(dayLog) },
    { match: 'running digest', reply: JSON.stringify({ digest: '她要搬去北京了。' }) },
    { match: 'Condense them', reply: JSON.stringify({ summary: '这一周她决定搬家。' }) },
  ]);
  const ingest = await own.api('/v1/ingest/messages?sync=true', {
    body: { conversation_id: conversation, messages: MESSAGES.slice(0, 2).map(([id, role, content], i) => ({ id, role, content, created_at: at(30 + i) })) },
  });
  assert.equal(ingest.status, 200, ingest.text);

  const run = await own.api('/v1/jobs/nightly/run', { method: 'POST', timeoutMs: 60_000 });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.json.outcome, 'ok', run.text);
  assert.ok(run.json.detail.days_logged.includes(day), run.text);

  const boot = await own.api('/v1/boot');
  assert.equal(boot.status, 200, boot.text);
  assert.equal(boot.json.digest.text, '她要搬去北京了。');
  assert.equal(boot.json.yesterday.day, day);
  const entry = boot.json.yesterday.entries.find((e) => e.text === '她说下个月搬去北京');
  assert.ok(entry, boot.text);
  // The day's messages are numbered for the model; the entry names the ones it cites by id.
  assert.ok(entry.sources.some((s) => s.conversation_id === conversation), boot.text);

  // A forget of a cited message takes the log and the digest that read it; the next run writes
  // the day again from what is left.
  const cited = entry.sources.find((s) => s.conversation_id === conversation);
  const forgot = await own.api(`/v1/conversations/${conversation}/messages/${cited.message_id}`, { method: 'DELETE' });
  assert.equal(forgot.status, 200, forgot.text);
  const after = await own.api('/v1/boot');
  assert.equal(after.json.yesterday, null, after.text);
  assert.equal(after.json.digest, null, after.text);
  const asked = (await own.upstream.requests()).length;
  const rerun = await own.api('/v1/jobs/nightly/run', { method: 'POST', timeoutMs: 60_000 });
  assert.equal(rerun.json.outcome, 'ok', rerun.text);
  assert.ok(rerun.json.detail.days_logged.includes(day), rerun.text);
  const sent = (await own.upstream.requests()).slice(asked).map((r) => JSON.stringify(r.body));
  const rewrite = sent.find((body) => body.includes("day's log"));
  assert.ok(rewrite, 'the day was written again');
  const forgottenText = MESSAGES.find(([id]) => id === cited.message_id)[2];
  assert.ok(!rewrite.includes(forgottenText), 'the forgotten message was sent to the model again');
});

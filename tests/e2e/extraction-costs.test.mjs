// What extraction costs, through the real binary beside a running server: an import says how
// many batches and prompt tokens extracting it takes and that imported history waits; the
// scheduled-style runs leave it alone while live messages are extracted; `cilia jobs run extract
// --backfill` starts it, later runs go on within max_batches_per_run, and the calls the fake
// upstream saw are the ones the estimate named. A daily budget stops a run, and doctor says so.
import assert from 'node:assert/strict';
import test from 'node:test';

import { gatewayConfig, startFakeUpstream } from './lib/gateway.mjs';
import { fileForTest, runCli, serverForTest } from './lib/server.mjs';

const EXTRACTION = { match: 'You excerpt memories', reply: '{"items": []}' };

// `conversations` chats of `messages` messages each, as JSON Lines of ingest objects: an
// import (source "import"), months old.
function history(conversations, messages, { stall } = {}) {
  const lines = [];
  for (let c = 0; c < conversations; c++) {
    lines.push(JSON.stringify({
      conversation_id: `old-${c}`,
      title: `Old chat ${c}`,
      messages: Array.from({ length: messages }, (_, i) => ({
        id: `m${i}`,
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `Chat ${c}, message ${i}: we talked about the garden, the trip to the coast and the new job again.${stall && c === 0 && i === 0 ? ` [[stall:${stall}]]` : ''}`,
        created_at: new Date(Date.UTC(2025, 0, 1 + c, 10, i)).toISOString(),
      })),
    }));
  }
  return lines.join('\n') + '\n';
}

async function costServer(t, env = {}) {
  const upstream = await startFakeUpstream();
  t.after(() => upstream.stop());
  await upstream.script([EXTRACTION]);
  const server = await serverForTest(t, {
    config: gatewayConfig({ upstreamUrl: upstream.url }),
    env: {
      CILIA_JOBS_ENABLED: 'false',
      CILIA_EXTRACTION_BATCH_SIZE: '10',
      CILIA_EXTRACTION_MAX_BATCHES_PER_RUN: '2',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      ...env,
    },
  });
  const extractionCalls = async () =>
    (await upstream.requests()).filter((r) => JSON.stringify(r.body).includes('You excerpt memories'));
  return { upstream, server, extractionCalls };
}

const runExtract = (server, query = '') => server.api(`/v1/jobs/extract/run${query}`, { method: 'POST', timeoutMs: 60_000 });

test('an import says what extraction costs; imported history waits until --backfill, then goes on in bounded runs', async (t) => {
  const { server, extractionCalls } = await costServer(t);
  // 3 conversations of 12 messages, batches of 10 with an overlap of 2: 10 new, then 2 new, each.
  const file = await fileForTest(t, 'history.jsonl', history(3, 12));
  const imported = await runCli(['import', file], { dataDir: server.dataDir, env: { CILIA_API_KEY: server.key } });
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /36 messages stored/);
  assert.match(imported.stdout, /^extraction: 6 batches, about \d+ prompt tokens \(estimated\), for 36 messages not extracted yet$/m);
  assert.match(imported.stdout, /6 of the batches are imported history, which is extracted only when asked: `cilia jobs run extract --backfill`/);
  // The same figures over HTTP (a second import of the same file stores nothing new, and the
  // messages are still waiting).
  const again = await runCli(['import', file, '--json'], { dataDir: server.dataDir, env: { CILIA_API_KEY: server.key } });
  assert.equal(again.code, 0, again.stderr);
  const estimate = JSON.parse(again.stdout).extraction;
  assert.equal(estimate.batches, 6, again.stdout);
  assert.equal(estimate.automatic, false, again.stdout);
  assert.equal(estimate.waiting_batches, 6, again.stdout);
  assert.equal(estimate.max_batches_per_run, 2, again.stdout);

  // Live messages are extracted as before; the imported ones wait.
  const live = await server.api('/v1/ingest/messages?sync=true', {
    body: {
      conversation_id: 'live',
      messages: Array.from({ length: 4 }, (_, i) => ({ id: `l${i}`, role: 'user', content: `Live message ${i} about the cello lessons.`, created_at: new Date(Date.now() - 3 * 3_600_000 + i * 60_000).toISOString() })),
    },
  });
  assert.equal(live.status, 200, live.text);
  const first = await runExtract(server);
  assert.equal(first.json?.outcome, 'ok', first.text);
  assert.equal(first.json.detail.model_calls, 1, first.text);
  assert.deepEqual(first.json.detail.waiting_for_backfill, { conversations: 3, messages: 36 }, first.text);
  assert.equal((await extractionCalls()).length, 1);

  // The owner asks: at most 2 batches a run, and the next runs go on without being asked again.
  const backfill = await runCli(['jobs', 'run', 'extract', '--backfill', '--json'], { dataDir: server.dataDir, env: { CILIA_API_KEY: server.key } });
  assert.equal(backfill.code, 0, backfill.stderr);
  const asked = JSON.parse(backfill.stdout);
  assert.equal(asked.detail.backfill, true, backfill.stdout);
  assert.equal(asked.detail.batches_ok, 2, backfill.stdout);
  assert.equal(asked.detail.stopped, 'max_batches_per_run', backfill.stdout);
  assert.equal(asked.detail.resumes, 'next run', backfill.stdout);
  let tokens = asked.detail.tokens_in;
  for (let run = 0; run < 2; run++) {
    const next = await runExtract(server);
    assert.equal(next.json?.outcome, 'ok', next.text);
    assert.equal(next.json.detail.batches_ok, 2, next.text);
    tokens += next.json.detail.tokens_in;
  }
  const done = await runExtract(server);
  assert.equal(done.json.detail.model_calls, 0, done.text);
  assert.equal(done.json.detail.stopped, null, done.text);
  assert.equal((await extractionCalls()).length, 1 + estimate.batches, 'the calls the estimate named, no more');
  // The fake upstream counts a quarter token per character of the JSON it gets; cilia's estimate
  // counts the text. They agree within a few per cent for English.
  const ratio = tokens / estimate.estimated_prompt_tokens;
  t.diagnostic(`estimated ${estimate.estimated_prompt_tokens} prompt tokens, the fake upstream reported ${tokens} (${ratio.toFixed(3)})`);
  assert.ok(ratio > 0.85 && ratio < 1.25, `estimate ${estimate.estimated_prompt_tokens} vs reported ${tokens}`);

  const nothingLeft = JSON.parse((await runCli(['import', file, '--json'], { dataDir: server.dataDir, env: { CILIA_API_KEY: server.key } })).stdout).extraction;
  assert.equal(nothingLeft.batches, 0);
  assert.equal(nothingLeft.automatic, true);
});

test('GET /v1/jobs shows a running extraction with how far it is', async (t) => {
  const { server } = await costServer(t, { CILIA_EXTRACTION_BACKFILL: 'true', CILIA_EXTRACTION_MAX_BATCHES_PER_RUN: '20' });
  // The first batch of the first conversation asks the fake upstream to wait 3 s before answering.
  const imported = await server.api('/v1/import?format=jsonl', { body: history(2, 12, { stall: 3000 }) });
  assert.equal(imported.status, 200, imported.text);
  assert.equal(imported.json.extraction.automatic, true, imported.text);
  const running = runExtract(server);
  let seen = null;
  for (let i = 0; i < 100 && !seen; i++) {
    const jobs = await server.api('/v1/jobs?job=extract');
    assert.equal(jobs.status, 200, jobs.text);
    seen = jobs.json.running.find((r) => r.job === 'extract' && r.items_total > 0) ?? null;
    if (!seen) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const run = await running;
  assert.ok(seen, 'the run was listed while it ran');
  assert.equal(seen.items_total, 24);
  assert.equal(seen.unit, 'messages');
  assert.ok(seen.items_done < seen.items_total, JSON.stringify(seen));
  assert.equal(seen.id, run.json.id);
  assert.equal(run.json.outcome, 'ok', run.text);
  assert.deepEqual((await server.api('/v1/jobs')).json.running, []);
});

test('a daily budget stops extraction for the day, and cilia doctor shows what is left', async (t) => {
  const { server, extractionCalls } = await costServer(t, { CILIA_EXTRACTION_BACKFILL: 'true', CILIA_EXTRACTION_DAILY_TOKEN_BUDGET: '1000' });
  const imported = await server.api('/v1/import?format=jsonl', { body: history(2, 12) });
  assert.equal(imported.status, 200, imported.text);
  assert.ok(imported.json.extraction.days_at_budget > 1, imported.text);
  const run = await runExtract(server);
  assert.equal(run.json?.outcome, 'ok', run.text);
  assert.equal(run.json.detail.stopped, 'daily_token_budget', run.text);
  assert.match(run.json.detail.resumes, /^\d{4}-\d{2}-\d{2}$/, run.text);
  assert.equal(run.json.detail.budget.daily_tokens, 1000, run.text);
  const spent = run.json.detail.budget.spent_today;
  assert.ok(spent <= 1000 + 1500, `at most one batch past what the estimate allowed: ${spent}`);
  const calls = (await extractionCalls()).length;
  const second = await runExtract(server);
  assert.equal(second.json.detail.model_calls, 0, second.text);
  assert.equal((await extractionCalls()).length, calls, 'no call once the budget is spent');

  const doctor = await runCli(['doctor', '--json'], { dataDir: server.dataDir, env: { CILIA_EXTRACTION_DAILY_TOKEN_BUDGET: '1000' } });
  const check = JSON.parse(doctor.stdout).checks.find((c) => c.name === 'extraction budget');
  assert.ok(check, doctor.stdout);
  assert.match(check.detail, new RegExp(`^1000 tokens a day — today default: ${spent} spent, ${Math.max(0, 1000 - spent)} left`), doctor.stdout);
});

#!/usr/bin/env node
// Retrieval quality through POST /v1/search against BM25 baselines, on the data of
// ../shared/bench (see bench/README.md). Prints Markdown; writes bench/results/quality-<dataset>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { repoRoot } from '../tests/e2e/lib/server.mjs';
import { bigramTurnBaseline, turnBaseline, windowBaseline } from './lib/baselines.mjs';
import { ingestAll, openCilia, search } from './lib/cilia.mjs';
import { locomoUnit, zhDevUnit } from './lib/datasets.mjs';
import { aggregate, cutToChars, scoreResults } from './lib/metrics.mjs';
import { synthConversations } from './lib/synth.mjs';

const K = [5, 10];
const BASELINE_DEPTH = 100; // baseline results kept per question, enough for the equal-character cut

const { values: opts } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'all' },
    url: { type: 'string' },
    key: { type: 'string', default: process.env.CILIA_API_KEY },
    'baselines-only': { type: 'boolean', default: false },
    distractors: { type: 'string', default: '3000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});

function zhDevWithDistractors() {
  const unit = zhDevUnit();
  // Dated over the year before the questions are asked, as an owner's own archive would be.
  const distractors = [...synthConversations({
    seed: opts.seed,
    messages: Number(opts.distractors),
    start: '2025-06-20T00:00:00+08:00',
    end: '2026-06-19T23:00:00+08:00',
    idPrefix: 'distractor',
  })];
  return { ...unit, name: 'zh-dev-distractors', conversations: [...unit.conversations, ...distractors] };
}

const LOCOMO_FILES = ['26', '30', '41'];
const DATASETS = {
  locomo: { units: () => LOCOMO_FILES.map(locomoUnit), baselines: { 'bm25-turn': turnBaseline, 'bm25-window': windowBaseline } },
  'zh-dev': { units: () => [zhDevUnit()], baselines: { 'bm25-bigram': bigramTurnBaseline } },
  'zh-dev-distractors': { units: () => [zhDevWithDistractors()], baselines: { 'bm25-bigram': bigramTurnBaseline } },
};
for (const file of LOCOMO_FILES) DATASETS[`locomo-${file}`] = { ...DATASETS.locomo, units: () => [locomoUnit(file)] };

// One record per question: its evidence and every system's ranked results.
async function runUnit(unit, baselines) {
  const built = Object.entries(baselines).map(([name, build]) => [name, build(unit.conversations)]);
  const known = new Set(unit.conversations.flatMap((c) => c.messages.map((m) => m.id)));
  const records = unit.questions.map((q) => ({
    unit: unit.name,
    qid: q.qid,
    group: q.group,
    evidence: q.evidence,
    evidence_missing: q.evidence.filter((id) => !known.has(id)),
    ranked: Object.fromEntries(built.map(([name, baseline]) => [name, baseline.search(q.question, BASELINE_DEPTH)])),
    cilia: {},
  }));
  if (opts['baselines-only']) return records;

  const cilia = await openCilia({ url: opts.url, key: opts.key });
  try {
    const started = Date.now();
    const ingested = await ingestAll(cilia, unit.conversations);
    console.error(`${unit.name}: ingested ${ingested.messages} messages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [i, q] of unit.questions.entries()) {
      for (const k of K) {
        const reply = await search(cilia, { query: q.question, limit: k, ...(q.now ? { now: q.now } : {}) });
        records[i].cilia[k] = reply.results;
      }
    }
  } finally {
    await cilia.stop();
  }
  return records;
}

// system → k → aggregate, with each baseline also cut to cilia's mean characters at that k.
function systemsOf(records) {
  const score = (resultsOf) => aggregate(records.map((r) => ({ group: r.group, score: scoreResults(resultsOf(r), r.evidence) })));
  const systems = {};
  const withCilia = records.length > 0 && Object.keys(records[0].cilia).length > 0;
  if (withCilia) systems.cilia = Object.fromEntries(K.map((k) => [k, score((r) => r.cilia[k])]));
  for (const name of Object.keys(records[0]?.ranked ?? {})) {
    systems[name] = Object.fromEntries(K.map((k) => [k, score((r) => r.ranked[name].slice(0, k))]));
    if (withCilia) {
      systems[`${name} @cilia chars`] = Object.fromEntries(K.map((k) => {
        const budget = systems.cilia[k].overall.mean_chars;
        return [k, score((r) => cutToChars(r.ranked[name], budget))];
      }));
    }
  }
  return systems;
}

const f3 = (x) => x.toFixed(3);

function markdown(dataset, systems, questions) {
  const lines = [`## ${dataset} — ${questions} questions`, ''];
  lines.push('| system | any@5 | all@5 | chars@5 | any@10 | all@10 | chars@10 |', '|---|---|---|---|---|---|---|');
  for (const [name, byK] of Object.entries(systems)) {
    const [a, b] = K.map((k) => byK[k].overall);
    lines.push(`| ${name} | ${f3(a.recall_any)} | ${f3(a.recall_all)} | ${Math.round(a.mean_chars)} | ${f3(b.recall_any)} | ${f3(b.recall_all)} | ${Math.round(b.mean_chars)} |`);
  }
  lines.push('', '| group | n | system | any@5 | all@5 | any@10 | all@10 |', '|---|---|---|---|---|---|---|');
  const groups = Object.keys(Object.values(systems)[0][K[0]].groups);
  for (const group of groups) {
    for (const [name, byK] of Object.entries(systems)) {
      const [a, b] = K.map((k) => byK[k].groups[group]);
      lines.push(`| ${group} | ${a.n} | ${name} | ${f3(a.recall_any)} | ${f3(a.recall_all)} | ${f3(b.recall_any)} | ${f3(b.recall_all)} |`);
    }
  }
  return lines.join('\n');
}

async function main() {
  const names = opts.dataset === 'all' ? ['locomo', 'zh-dev', 'zh-dev-distractors'] : opts.dataset.split(',');
  for (const name of names) {
    const dataset = DATASETS[name];
    if (!dataset) throw new Error(`unknown dataset ${name}; known: ${Object.keys(DATASETS).join(', ')}`);
    const units = dataset.units();
    if (opts.url && (units.length > 1 || names.length > 1)) {
      throw new Error('--url uses one running cilia (one namespace): give a single dataset unit, e.g. --dataset locomo-26, on an empty namespace');
    }
    const records = [];
    for (const unit of units) records.push(...(await runUnit(unit, dataset.baselines)));

    const systems = systemsOf(records);
    console.log(markdown(name, systems, records.length) + '\n');
    const perUnit = Object.fromEntries(units.map((u) => {
      const unitSystems = systemsOf(records.filter((r) => r.unit === u.name));
      return [u.name, Object.fromEntries(Object.entries(unitSystems).map(([s, byK]) => [s, Object.fromEntries(K.map((k) => [k, byK[k].overall]))]))];
    }));
    const missing = records.flatMap((r) => r.evidence_missing.map((id) => `${r.qid}:${id}`));
    const report = {
      dataset: name,
      generated_at: new Date().toISOString(),
      cilia: opts['baselines-only'] ? null : { url: opts.url ?? 'started by the benchmark' },
      questions: records.length,
      evidence_ids_not_in_corpus: missing,
      systems,
      per_unit: units.length > 1 ? perUnit : undefined,
      per_question: records.map((r) => ({
        qid: r.qid,
        group: r.group,
        evidence: r.evidence,
        cilia: Object.fromEntries(Object.entries(r.cilia).map(([k, results]) => [k, results.map((x) => x.message_ids)])),
      })),
    };
    mkdirSync(opts.out, { recursive: true });
    const file = join(opts.out, `quality-${name}${opts['baselines-only'] ? '-baselines' : ''}.json`);
    writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
    console.error(`wrote ${file}`);
  }
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});

#!/usr/bin/env node
// Is the per-turn menu worth its tokens? Through the real gateway and the scripted fake upstream:
// zh-dev's archive, then one new conversation per probe turn, and what the turn record says was
// injected. Two kinds of turn:
//  - asks: zh-dev's 56 questions. A turn has a hit when a line's source window holds an
//    evidence message (the model's `recall` then reaches it); a line is evidence when its
//    sentence is an evidence message's own words (a lower bound: another message may say the
//    same). Reported: turns with a hit, lines per turn, the share of lines that are evidence.
//  - idle: everyday turns the archive holds nothing about (small talk, a task, a question on a
//    subject never mentioned). Every line there is noise.
// The menu's tokens per turn (the estimate cilia budgets with) as p50 and max.
// Each probe conversation is forgotten after its turn, so no probe becomes memory for the next.
// zh-dev is shifted by whole weeks so that its questions' asked_at falls in the week before the
// real now: relative time words ("上周日") then mean what they meant (the gateway has no clock
// of its own to set). Prints Markdown; writes bench/results/menu.json. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { startGateway, uniqueId } from '../tests/e2e/lib/gateway.mjs';
import { repoRoot } from '../tests/e2e/lib/server.mjs';
import { contentText, zhDevUnit } from './lib/datasets.mjs';

const { values: opts } = parseArgs({
  options: {
    env: { type: 'string', multiple: true, default: [] }, // NAME=VALUE for cilia, e.g. CILIA_GATEWAY_MENU_MIN_MATCH=0.4
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
    verbose: { type: 'boolean', default: false },
  },
});

// Turns people send that zh-dev's archive (a programmer in Chengdu, running, moving house, his
// grandmother, a friend's dog, a book club) holds nothing about.
const IDLE = [
  '我家猫叫什么来着',
  '今天天气怎么样',
  '晚安',
  '你好呀',
  '帮我写一个快速排序',
  '给我讲个笑话吧',
  '溏心蛋要煮几分钟',
  '推荐一部科幻电影',
  '我好无聊啊',
  '帮我把 good morning 翻译成法语',
  '我的护照是不是快过期了',
  '你觉得人工智能会有意识吗',
  '周末想学做蛋糕',
  'What is the capital of Australia?',
  'Can you explain how a hash map works?',
  'good night',
  'thanks, that helps',
  '我想给妹妹买个生日礼物',
  'Python 里怎么读取 json 文件',
  '最近睡得不太好',
];

const DAY_MS = 86_400_000;

// The whole-week shift that brings `latest` into the 7 days before now.
function weekShift(latest, now) {
  const weeks = Math.floor((now - latest) / (7 * DAY_MS));
  return weeks * 7 * DAY_MS;
}

const shifted = (iso, by) => new Date(Date.parse(iso) + by).toISOString();

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] : 0;
}

const estimateTokens = (text) => {
  // cilia's estimate (text/tokens.h): Han characters ~1 token each, other text ~4 bytes a token.
  let han = 0;
  let other = 0;
  for (const ch of text) {
    if (/\p{Script=Han}/u.test(ch)) han += 1;
    else other += Buffer.byteLength(ch);
  }
  return han + Math.ceil(other / 4);
};

async function probe(gateway, text) {
  const conversation = uniqueId('probe');
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json', 'x-cilia-conversation': conversation },
    body: JSON.stringify({ model: 'companion', messages: [{ role: 'system', content: '你是阿杰的朋友。' }, { role: 'user', content: text }] }),
  });
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
  await res.text();
  const turns = await gateway.api(`/v1/turns?conversation_id=${encodeURIComponent(conversation)}&limit=1`);
  const record = turns.json.turns[0];
  const forget = await gateway.api(`/v1/conversations/${encodeURIComponent(conversation)}`, { method: 'DELETE' });
  if (forget.status !== 200) throw new Error(`forget answered ${forget.status}: ${forget.text}`);
  return { lines: record.injected?.menu ?? [], sources: record.sources ?? [] };
}

async function main() {
  const unit = zhDevUnit();
  const latest = Math.max(...unit.questions.map((q) => Date.parse(q.now)));
  const by = weekShift(latest, Date.now());
  const env = { CILIA_SERVER_TIME_ZONE: 'Asia/Shanghai' };
  for (const pair of opts.env) {
    const at = pair.indexOf('=');
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const gateway = await startGateway({ env });
  try {
    for (const conversation of unit.conversations) {
      const body = { ...conversation, messages: conversation.messages.map((m) => ({ ...m, created_at: shifted(m.created_at, by) })) };
      const r = await gateway.api('/v1/ingest/messages?sync=true', { method: 'POST', body });
      if (r.status !== 200) throw new Error(`ingest answered ${r.status}: ${r.text}`);
    }
    const textById = new Map(unit.conversations.flatMap((c) => c.messages.map((m) => [m.id, contentText(m.content)])));
    const asks = [];
    for (const q of unit.questions) {
      const { lines, sources } = await probe(gateway, q.question);
      // hit: some line's source (its window) holds an evidence message, so `recall` reaches it.
      const evidence = new Set(q.evidence);
      const evidenceTexts = q.evidence.map((id) => collapse(textById.get(id) ?? ''));
      const hit = sources.some((s) => evidence.has(s.message_id));
      asks.push({ qid: q.qid, group: q.group, lines, hit, bearing: lines.filter((line) => lineBears(line, evidenceTexts)).length });
      if (opts.verbose) console.error(q.qid, hit ? 'HIT ' : '    ', q.question, '\n   ', lines.join('\n    '));
    }
    const idle = [];
    for (const text of IDLE) {
      const { lines } = await probe(gateway, text);
      idle.push({ text, lines });
      if (opts.verbose && lines.length) console.error('IDLE', text, '\n   ', lines.join('\n    '));
    }
    report(asks, idle);
  } finally {
    await gateway.stop();
  }
}

// A line bears when its sentence is an evidence message's own words: the line's text after its
// date ("06-14 ", "2025-06-14 "), without the "…" of a cut, whitespace collapsed, found in one.
const collapse = (text) => text.replace(/\s+/g, ' ').trim();
function lineBears(line, evidenceTexts) {
  const sentence = collapse(line.replace(/^(\d{4}-)?\d{2}-\d{2} /, '').replace(/…$/, ''));
  return sentence.length > 0 && evidenceTexts.some((text) => text.includes(sentence));
}

function report(asks, idle) {
  const tokens = [...asks, ...idle].map((p) => p.lines.reduce((sum, line) => sum + estimateTokens(line), 0));
  const askLines = asks.reduce((s, a) => s + a.lines.length, 0);
  const bearing = asks.reduce((s, a) => s + a.bearing, 0);
  const summary = {
    asks: asks.length,
    ask_turns_with_lines: asks.filter((a) => a.lines.length > 0).length,
    ask_turns_hit: asks.filter((a) => a.hit).length,
    ask_lines: askLines,
    ask_lines_per_turn: askLines / asks.length,
    ask_lines_bearing: bearing,
    idle: idle.length,
    idle_turns_with_lines: idle.filter((p) => p.lines.length > 0).length,
    idle_lines: idle.reduce((s, p) => s + p.lines.length, 0),
    menu_tokens_p50: percentile(tokens, 0.5),
    menu_tokens_max: Math.max(...tokens),
  };
  const byGroup = {};
  for (const a of asks) {
    const g = (byGroup[a.group] ??= { n: 0, hit: 0, lines: 0 });
    g.n += 1;
    g.hit += a.hit ? 1 : 0;
    g.lines += a.lines.length;
  }
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'menu.json'), JSON.stringify({ env: opts.env, summary, byGroup, asks, idle }, null, 2));
  const pct = (a, b) => (b ? ((100 * a) / b).toFixed(0) + ' %' : '—');
  console.log(`| env | asks: turns with a hit | asks: lines/turn | asks: lines that are evidence | idle: turns with lines | idle: lines | menu tokens p50 / max |`);
  console.log(`|---|---|---|---|---|---|---|`);
  console.log(
    `| ${opts.env.join(' ') || 'defaults'} | ${summary.ask_turns_hit}/${summary.asks} (${pct(summary.ask_turns_hit, summary.asks)}) | ` +
      `${summary.ask_lines_per_turn.toFixed(2)} | ${bearing}/${askLines} (${pct(bearing, askLines)}) | ${summary.idle_turns_with_lines}/${summary.idle} | ${summary.idle_lines} | ` +
      `${summary.menu_tokens_p50} / ${summary.menu_tokens_max} |`,
  );
  console.log('\nBy type (turns with a hit / n, lines):');
  for (const [group, g] of Object.entries(byGroup)) console.log(`- ${group}: ${g.hit}/${g.n}, ${g.lines} lines`);
}

await main();

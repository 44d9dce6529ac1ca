// Seeded, deterministic synthetic chat: conversations of 20–200 messages, Chinese, English and
// mixed, 20–400 characters a message, dated over a span (two years by default). Also the query
// mix of the speed benchmark. `node bench/lib/synth.mjs` prints statistics of a sample.
import * as W from './words.mjs';

// mulberry32 over a 32-bit seed derived from any string or number.
export function makeRandom(seed) {
  let state = 2166136261;
  for (const ch of String(seed)) state = Math.imul(state ^ ch.codePointAt(0), 16777619);
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (items) => items[Math.floor(next() * items.length)];
  return { next, int, pick, chance: (p) => next() < p };
}

const EN_TEMPLATES = [
  (r) => `I ${r.pick(W.EN_VERBS)} the ${r.pick(W.EN_ADJECTIVES)} ${r.pick(W.EN_NOUNS)} ${r.pick(W.EN_TIME_WORDS)}.`,
  (r) => `Did you ${r.pick(W.EN_VERBS)} the ${r.pick(W.EN_NOUNS)} yet?`,
  (r) => `We should ${r.pick(W.EN_VERBS)} some ${r.pick(W.EN_NOUNS)} before the ${r.pick(W.EN_NOUNS)}.`,
  (r) => `${r.pick(W.EN_NAMES)} says the ${r.pick(W.EN_NOUNS)} is way too ${r.pick(W.EN_ADJECTIVES)}.`,
  (r) => `Honestly the ${r.pick(W.EN_NOUNS)} in ${r.pick(W.EN_PLACES)} was ${r.pick(W.EN_ADJECTIVES)}.`,
  (r) => `Can you remind me to ${r.pick(W.EN_VERBS)} the ${r.pick(W.EN_NOUNS)} ${r.pick(W.EN_TIME_WORDS)}?`,
  (r) => `${r.pick(W.EN_NAMES)} wants to ${r.pick(W.EN_VERBS)} a ${r.pick(W.EN_ADJECTIVES)} ${r.pick(W.EN_NOUNS)} with me.`,
  (r) => `lol that ${r.pick(W.EN_NOUNS)} is so ${r.pick(W.EN_ADJECTIVES)}`,
  (r) => `I think I'll ${r.pick(W.EN_VERBS)} ${r.pick(W.EN_TIME_WORDS)}, the ${r.pick(W.EN_NOUNS)} can wait.`,
  (r) => `The ${r.pick(W.EN_NOUNS)} and the ${r.pick(W.EN_NOUNS)} are both ${r.pick(W.EN_ADJECTIVES)} this week.`,
  (r) => `My ${r.pick(W.EN_NOUNS)} broke again, so I had to ${r.pick(W.EN_VERBS)} a new one.`,
  (r) => `It cost ${r.int(3, 900)} dollars, which feels ${r.pick(W.EN_ADJECTIVES)} for a ${r.pick(W.EN_NOUNS)}.`,
  (r) => `We met at ${r.int(1, 12)} near the ${r.pick(W.EN_NOUNS)} and talked about ${r.pick(W.EN_NOUNS)}.`,
  (r) => `Not sure if I should ${r.pick(W.EN_VERBS)} or just ${r.pick(W.EN_VERBS)} instead.`,
];

const ZH_TEMPLATES = [
  (r) => `我${r.pick(W.ZH_TIME_WORDS)}去${r.pick(W.ZH_PLACES)}${r.pick(W.ZH_VERBS)}了${r.pick(W.ZH_NOUNS)}。`,
  (r) => `${r.pick(W.ZH_NAMES)}说那个${r.pick(W.ZH_NOUNS)}太${r.pick(W.ZH_ADJECTIVES)}了。`,
  (r) => `你${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}了吗？`,
  (r) => `感觉${r.pick(W.ZH_NOUNS)}有点${r.pick(W.ZH_ADJECTIVES)}，下次还是${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}吧。`,
  (r) => `${r.pick(W.ZH_TIME_WORDS)}打算和${r.pick(W.ZH_NAMES)}一起去${r.pick(W.ZH_PLACES)}${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}。`,
  (r) => `今天的${r.pick(W.ZH_NOUNS)}真的好${r.pick(W.ZH_ADJECTIVES)}啊哈哈`,
  (r) => `别忘了${r.pick(W.ZH_TIME_WORDS)}要${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}。`,
  (r) => `我觉得${r.pick(W.ZH_NOUNS)}比${r.pick(W.ZH_NOUNS)}${r.pick(W.ZH_ADJECTIVES)}多了。`,
  (r) => `${r.pick(W.ZH_PLACES)}那边的${r.pick(W.ZH_NOUNS)}特别${r.pick(W.ZH_ADJECTIVES)}，推荐你去${r.pick(W.ZH_VERBS)}一下。`,
  (r) => `${r.pick(W.ZH_NOUNS)}花了${r.int(5, 3000)}块，有点${r.pick(W.ZH_ADJECTIVES)}。`,
  (r) => `${r.pick(W.ZH_NAMES)}${r.pick(W.ZH_TIME_WORDS)}帮我${r.pick(W.ZH_VERBS)}了${r.pick(W.ZH_NOUNS)}，好${r.pick(W.ZH_ADJECTIVES)}！`,
  (r) => `嗯嗯，那就先${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}，再${r.pick(W.ZH_VERBS)}${r.pick(W.ZH_NOUNS)}。`,
  (r) => `${r.int(1, 12)}点在${r.pick(W.ZH_NOUNS)}门口见，记得带${r.pick(W.ZH_NOUNS)}。`,
  // code switching, as real bilingual chat does
  (r) => `刚才的${r.pick(W.EN_NOUNS)}有点${r.pick(W.ZH_ADJECTIVES)}，明天再${r.pick(W.ZH_VERBS)}吧。`,
];

const LANGUAGES = [
  { weight: 0.45, templates: [ZH_TEMPLATES], joiner: '' },
  { weight: 0.4, templates: [EN_TEMPLATES], joiner: ' ' },
  { weight: 0.15, templates: [ZH_TEMPLATES, EN_TEMPLATES], joiner: ' ' },
];

function pickLanguage(r) {
  let x = r.next();
  for (const language of LANGUAGES) {
    if ((x -= language.weight) < 0) return language;
  }
  return LANGUAGES[0];
}

const codePoints = (text) => [...text].length;

// Mostly short lines, some paragraphs, like real chat: 60% 20–80, 30% 80–200, 10% 200–400 chars.
function targetLength(r) {
  const x = r.next();
  if (x < 0.6) return r.int(20, 80);
  if (x < 0.9) return r.int(80, 200);
  return r.int(200, 400);
}

function message(r, language) {
  const target = targetLength(r);
  let text = '';
  for (let guard = 0; guard < 40; guard++) {
    const sentence = r.pick(r.pick(language.templates))(r);
    const joined = text ? text + language.joiner + sentence : sentence;
    if (codePoints(joined) > 400) break;
    text = joined;
    if (codePoints(text) >= target) break;
  }
  while (codePoints(text) < 20) text += language.joiner + r.pick(r.pick(language.templates))(r);
  return [...text].slice(0, 400).join('');
}

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

// Yields ingest bodies ({conversation_id, title, messages}) until `messages` messages in total.
// Dates fall in [start, end); gaps are mostly minutes, sometimes hours or days.
export function* synthConversations({
  seed = 1,
  messages: total,
  start = '2024-06-01T00:00:00Z',
  end = '2026-06-01T00:00:00Z',
  idPrefix = 'synth',
} = {}) {
  const r = makeRandom(`conversations:${seed}`);
  const startMs = Date.parse(start);
  const endMs = Date.parse(end);
  let produced = 0;
  for (let index = 1; produced < total; index++) {
    const size = Math.min(r.int(20, 200), total - produced);
    const language = pickLanguage(r);
    let time = startMs + Math.floor((r.next() * (endMs - startMs) * 0.97) / 1000) * 1000;
    let role = 'user';
    const messages = [];
    for (let i = 1; i <= size; i++) {
      messages.push({
        id: `m${String(i).padStart(3, '0')}`,
        role,
        name: role === 'user' ? 'me' : 'AI',
        content: message(r, language),
        created_at: iso(Math.min(time, endMs - 1)),
      });
      if (r.chance(0.6)) role = role === 'user' ? 'assistant' : 'user';
      time += r.chance(0.05) ? r.int(3_600, 3 * 86_400) * 1000 : r.int(5, 600) * 1000;
    }
    produced += size;
    const id = `${idPrefix}-${String(index).padStart(6, '0')}`;
    yield { conversation_id: id, title: `chat ${index}`, messages };
  }
}

// A guess of how many L0 windows cilia makes of a conversation (windows hold ≤700 chars of
// text with one segment of overlap): about one per 600 characters. The speed benchmark
// prefers the real count from GET /metrics.
export function estimateWindows(conversation) {
  const chars = conversation.messages.reduce((sum, m) => sum + codePoints(m.content), 0);
  return Math.max(1, Math.ceil(chars / 600));
}

// The queries people type into a memory search: 1–4 words, common words included, Chinese and
// English, some with time words, some exact substrings of stored text (`samples`: message texts).
export function queryMix({ seed = 1, count, samples }) {
  const r = makeRandom(`queries:${seed}`);
  const queries = [];
  const words = (n, lists) => Array.from({ length: n }, () => r.pick(r.pick(lists)));
  for (let i = 0; i < count; i++) {
    const x = r.next();
    if (x < 0.3) {
      queries.push({ kind: 'en', query: words(r.int(1, 4), [W.EN_NOUNS, W.EN_NOUNS, W.EN_VERBS, W.EN_ADJECTIVES, W.EN_COMMON, W.EN_NAMES]).join(' ') });
    } else if (x < 0.6) {
      queries.push({ kind: 'zh', query: words(r.int(1, 4), [W.ZH_NOUNS, W.ZH_NOUNS, W.ZH_VERBS, W.ZH_ADJECTIVES, W.ZH_COMMON, W.ZH_NAMES]).join(r.chance(0.5) ? ' ' : '') });
    } else if (x < 0.7) {
      queries.push({ kind: 'time', query: `what did I say ${r.pick(['yesterday', 'last week', 'last month', 'recently'])} about ${r.pick(W.EN_NOUNS)}` });
    } else if (x < 0.8) {
      queries.push({ kind: 'time', query: `${r.pick(W.ZH_TIME_WORDS)}${r.pick(['说的', '聊的', ''])}${r.pick(W.ZH_NOUNS)}` });
    } else if (x < 0.9) {
      const text = [...r.pick(samples)];
      const length = Math.min(text.length, r.int(2, 8));
      const from = r.int(0, text.length - length);
      queries.push({ kind: 'exact', query: text.slice(from, from + length).join('').trim() || text.join(''), exact: true });
    } else {
      queries.push({ kind: 'mixed', query: `${r.pick(W.ZH_NOUNS)} ${r.pick(W.EN_NOUNS)}` });
    }
  }
  return queries;
}

function printSampleStatistics() {
  const conversations = [...synthConversations({ seed: 7, messages: 20_000 })];
  const messages = conversations.flatMap((c) => c.messages);
  const lengths = messages.map((m) => codePoints(m.content)).sort((a, b) => a - b);
  const sizes = conversations.map((c) => c.messages.length);
  const again = [...synthConversations({ seed: 7, messages: 20_000 })];
  const times = messages.map((m) => m.created_at).sort();
  console.log({
    distinct_words_in_lists: W.distinctWordCount(),
    conversations: conversations.length,
    messages: messages.length,
    conversation_size: [Math.min(...sizes), Math.max(...sizes)],
    message_chars_min_p50_max: [lengths[0], lengths[lengths.length >> 1], lengths.at(-1)],
    mean_chars: Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length),
    estimated_windows: conversations.reduce((s, c) => s + estimateWindows(c), 0),
    dates: [times[0], times.at(-1)],
    deterministic: JSON.stringify(conversations) === JSON.stringify(again),
    examples: messages.slice(0, 4).map((m) => m.content),
    queries: queryMix({ seed: 7, count: 8, samples: messages.slice(0, 100).map((m) => m.content) }),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) printSampleStatistics();

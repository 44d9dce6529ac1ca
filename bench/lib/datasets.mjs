// The evaluation sets of ../shared/bench, turned into ingest bodies and scored questions.
// A dataset unit: {name, conversations: [ingest body], questions: [{qid, question, evidence,
// group, now?}]}, one unit per data dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot } from '../../tests/e2e/lib/server.mjs';

export const sharedBench = process.env.CILIA_SHARED_BENCH || join(repoRoot, '..', 'shared', 'bench');

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

// "1:56 pm on 8 May, 2023", read as UTC → Unix ms.
export function parseLocomoDate(text) {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!match) throw new Error(`unreadable LoCoMo date: ${text}`);
  const [, hour, minute, half, day, monthName, year] = match;
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0) throw new Error(`unknown month in ${text}`);
  const hour24 = (Number(hour) % 12) + (half.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), month, Number(day), hour24, Number(minute));
}

// Loose evidence ids ("D30:05", "D:11:26", "D8:6; D9:17") → ["D<session>:<turn>", ...].
export function normaliseEvidence(ids) {
  const out = [];
  for (const raw of ids) {
    for (const [, session, turn] of String(raw).matchAll(/D\s*:?\s*(\d+)\s*:\s*(\d+)/g)) {
      const id = `D${Number(session)}:${Number(turn)}`;
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function locomoUnit(fileId) {
  const data = JSON.parse(readFileSync(join(sharedBench, 'locomo-dev', `${fileId}.json`), 'utf8'));
  const sessions = Object.keys(data)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match) => match && Array.isArray(data[match[0]]) && data[match[0]].length > 0)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const conversations = sessions.map((n) => {
    const startMs = parseLocomoDate(data[`session_${n}_date_time`]);
    return {
      conversation_id: `${fileId}-s${n}`,
      messages: data[`session_${n}`].map((turn, index) => ({
        id: turn.dia_id,
        role: turn.speaker === data.speaker_a ? 'user' : 'assistant',
        name: turn.speaker,
        content: turn.blip_caption ? `${turn.text} [image: ${turn.blip_caption}]` : turn.text,
        created_at: iso(startMs + index * 1000),
      })),
    };
  });
  const questions = data.qa
    .filter((qa) => qa.category >= 1 && qa.category <= 4)
    .map((qa, index) => ({
      qid: `${fileId}-q${index + 1}`,
      question: qa.question,
      evidence: normaliseEvidence(qa.evidence ?? []),
      group: `category ${qa.category}`,
    }))
    .filter((q) => q.evidence.length > 0);
  return { name: `locomo-${fileId}`, conversations, questions };
}

export function zhDevUnit() {
  const data = JSON.parse(readFileSync(join(sharedBench, 'zh-dev', 'zh-dev.json'), 'utf8'));
  return {
    name: 'zh-dev',
    conversations: data.conversations,
    questions: data.questions.map((q) => ({ qid: q.qid, question: q.question, evidence: q.evidence, group: q.type, now: q.asked_at })),
  };
}

// The plain text of a content value (string, or the text parts of a parts array).
export function contentText(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).filter((part) => part.type === 'text').map((part) => part.text).join('\n');
}

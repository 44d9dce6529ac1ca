// BM25 baselines over the same ingest bodies cilia gets. Results are rendered the way cilia
// renders archive results (a "[date · title]" header, "Speaker: " where the speaker changes),
// so characters returned compare.
import { BM25, bigramTokens, contentWordTokens, wordTokens } from './bm25.mjs';
import { charCount } from './metrics.mjs';
import { contentText } from './datasets.mjs';

const WINDOW_CHARS = 700;

function render(conversation, messages) {
  const header = `[${messages[0].created_at.slice(0, 10)} · ${conversation.title || conversation.conversation_id}]`;
  const lines = [header];
  let speaker = null;
  for (const message of messages) {
    const name = message.name || message.role;
    lines.push(name === speaker ? contentText(message.content) : `${name}: ${contentText(message.content)}`);
    speaker = name;
  }
  return lines.join('\n');
}

function result(conversation, messages) {
  return {
    conversation_id: conversation.conversation_id,
    message_ids: messages.map((m) => m.id),
    created_at: messages[0].created_at,
    text: render(conversation, messages),
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

// "8 May, 2023": a session's date as LoCoMo writes it.
function dateLine(createdAt) {
  const d = new Date(createdAt);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

const speakerLine = (message) => `${message.name || message.role}: ${contentText(message.content)}`;

// The strong window baseline of issue 10: "Speaker: text" lines packed up to 700 characters
// per conversation (a longer line stands alone), each window after the first starting with
// the previous one's last line.
export function packWindows(messages, limit = WINDOW_CHARS) {
  const windows = [];
  let current = [];
  let length = 0;
  for (const message of messages) {
    const size = charCount(speakerLine(message));
    if (current.length > 0 && length + size > limit) {
      windows.push(current);
      current = current.slice(-1);
      length = charCount(speakerLine(current[0]));
    }
    current.push(message);
    length += size;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

function index(conversations, tokenize, unitsOf, indexedText) {
  const bm25 = new BM25({ k1: 1.2, b: 0.75, tokenize });
  for (const conversation of conversations) {
    for (const messages of unitsOf(conversation)) bm25.add(result(conversation, messages), indexedText(messages));
  }
  return { search: (query, limit) => bm25.search(query, limit).map((hit) => hit.item) };
}

const messageTexts = (messages) => messages.map((m) => contentText(m.content)).join('\n');

export const turnBaseline = (conversations, tokenize = wordTokens) =>
  index(conversations, tokenize, (c) => c.messages.map((m) => [m]), messageTexts);

// The window's date line, then its "Speaker: text" lines, English stop words left out.
export const windowBaseline = (conversations) =>
  index(conversations, contentWordTokens, (c) => packWindows(c.messages),
    (messages) => [dateLine(messages[0].created_at), ...messages.map(speakerLine)].join('\n'));

export const bigramTurnBaseline = (conversations) => turnBaseline(conversations, bigramTokens);

// BM25 baselines over the same ingest bodies cilia gets. Results are rendered the way cilia
// renders archive results (a "[date · title]" header, "Speaker: " where the speaker changes),
// so characters returned compare; only the message text is indexed, as in cilia.
import { BM25, bigramTokens, wordTokens } from './bm25.mjs';
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

// Consecutive whole messages packed up to 700 characters of message text (a longer message
// stands alone).
export function packWindows(messages, limit = WINDOW_CHARS) {
  const windows = [];
  let current = [];
  let length = 0;
  for (const message of messages) {
    const size = charCount(contentText(message.content));
    if (current.length > 0 && length + size > limit) {
      windows.push(current);
      current = [];
      length = 0;
    }
    current.push(message);
    length += size;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

function index(conversations, tokenize, unitsOf) {
  const bm25 = new BM25({ k1: 1.2, b: 0.75, tokenize });
  for (const conversation of conversations) {
    for (const messages of unitsOf(conversation)) {
      bm25.add(result(conversation, messages), messages.map((m) => contentText(m.content)).join('\n'));
    }
  }
  return { search: (query, limit) => bm25.search(query, limit).map((hit) => hit.item) };
}

export const turnBaseline = (conversations, tokenize = wordTokens) =>
  index(conversations, tokenize, (c) => c.messages.map((m) => [m]));

export const windowBaseline = (conversations, tokenize = wordTokens) =>
  index(conversations, tokenize, (c) => packWindows(c.messages));

export const bigramTurnBaseline = (conversations) => turnBaseline(conversations, bigramTokens);

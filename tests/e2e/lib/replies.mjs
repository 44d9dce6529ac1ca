// Readers for reply details the contract leaves open (list field names, cursor field, how a
// listed message names its caller id). Lenient on purpose: one place to tighten once docs/ fix them.
import assert from 'node:assert/strict';

const LIST_FIELDS = ['messages', 'conversations', 'data', 'items', 'results', 'keys'];
const CURSOR_FIELDS = ['next_cursor', 'cursor', 'next'];

export function listItems(reply) {
  if (Array.isArray(reply)) return reply;
  for (const field of LIST_FIELDS) if (Array.isArray(reply?.[field])) return reply[field];
  assert.fail(`no list in reply: ${JSON.stringify(reply).slice(0, 300)}`);
}

export function nextCursor(reply) {
  for (const field of CURSOR_FIELDS) if (reply?.[field]) return reply[field];
  return null;
}

// The caller's id of a listed message.
export const messageIdOf = (message) => message.message_id ?? message.external_id ?? message.caller_id ?? message.id;

export const conversationIdOf = (conversation) => conversation.conversation_id ?? conversation.id;

// GETs every page of a listing, following the cursor the reply gives. Bounded.
export async function listAll(server, path, { pageLimit, key } = {}) {
  const items = [];
  const pages = [];
  let cursor = null;
  for (let page = 0; page < 1_000; page++) {
    const params = new URLSearchParams();
    if (pageLimit) params.set('limit', String(pageLimit));
    if (cursor) params.set('cursor', cursor);
    const query = params.toString();
    const reply = await server.api(query ? `${path}?${query}` : path, key ? { key } : {});
    assert.equal(reply.status, 200, `GET ${path}: ${reply.text}`);
    const pageItems = listItems(reply.json);
    pages.push(pageItems);
    items.push(...pageItems);
    cursor = nextCursor(reply.json);
    if (!cursor) return { items, pages };
  }
  assert.fail(`${path}: more than 1000 pages`);
}

export function assertOpenAIError(reply, status) {
  assert.equal(reply.status, status, `expected ${status}, got ${reply.status}: ${reply.text}`);
  const error = reply.json?.error;
  assert.ok(error && typeof error === 'object', `error body is not OpenAI-shaped: ${reply.text}`);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.ok('type' in error, `error has no type: ${reply.text}`);
  assert.ok('code' in error, `error has no code: ${reply.text}`);
  return error;
}

// The same instant, whatever the offset notation or fractional seconds.
export function assertSameInstant(actual, expected, what = 'time') {
  assert.ok(actual, `${what} missing`);
  assert.equal(new Date(actual).getTime(), new Date(expected).getTime(), `${what}: ${actual} is not ${expected}`);
}

// The official SDK clients, pointed at a gateway from gateway.mjs. No retries of their own, so
// that what a test sees is what cilia answered.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

const CLIENT_TIMEOUT_MS = 30_000;

// `base`: where the client's /chat/completions lives, e.g. "/v1/guide-dog".
export function openaiClient(gateway, { key = gateway.key, base = '/v1' } = {}) {
  return new OpenAI({ baseURL: gateway.url + base, apiKey: key, maxRetries: 0, timeout: CLIENT_TIMEOUT_MS });
}

export function anthropicClient(gateway, { key = gateway.key } = {}) {
  return new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0, timeout: CLIENT_TIMEOUT_MS });
}

// Request options that name the stored conversation.
export const inConversation = (id, extra = {}) => ({ ...extra, headers: { 'X-Cilia-Conversation': id, ...extra.headers } });

// A Responses API reply's text: its message items' output_text parts, joined.
export const outputText = (response) =>
  response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content)
    .map((part) => part.text)
    .join('');

export { Anthropic, OpenAI };

// The admin page's strings: every key the page's sources name is in both
// languages, both languages have the same keys, and none is left empty. No
// browser needed: i18n.js is a plain module.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import { repoRoot } from './lib/server.mjs';

const webDir = join(repoRoot, 'web', 'admin');
const { STRINGS } = await import(join(webDir, 'i18n.js'));

async function sources() {
  const files = [];
  for (const dir of [webDir, join(webDir, 'views')]) {
    for (const name of await readdir(dir)) if (name.endsWith('.js')) files.push(await readFile(join(dir, name), 'utf8'));
  }
  return files.join('\n');
}

// Keys built at run time from a value the server sends: every value it can send.
const FAMILIES = {
  type: ['fact', 'preference', 'event', 'plan', 'relationship', 'rule', 'project', 'other'],
  status: ['active', 'superseded', 'archived', 'all'],
  role: ['user', 'assistant', 'system', 'tool'],
  author: ['owner', 'agent', 'extractor'],
  job: ['extract', 'nightly', 'retention', 'reindex'],
  outcome: ['running', 'ok', 'partial', 'skipped', 'failed'],
  started_by: ['schedule', 'manual'],
  format: ['auto', 'cilia', 'jsonl', 'chatgpt', 'claude', 'chatbox', 'sillytavern'],
  nav: ['today', 'review', 'memories', 'archive', 'curated', 'usage', 'settings', 'more'],
  curated: ['profile', 'glossary', 'precious'],
  lang: ['en', 'zh'],
  usage: ['day', 'model', 'requests', 'failed', 'input', 'output', 'hit_rate', 'recall_rounds', 'first_byte', 'total', 'cost'],
};

test('both languages have the same keys, none empty', () => {
  assert.deepEqual(Object.keys(STRINGS.zh).sort(), Object.keys(STRINGS.en).sort());
  for (const [language, strings] of Object.entries(STRINGS)) {
    for (const [key, text] of Object.entries(strings)) assert.ok(text.trim(), `${language} ${key} is empty`);
  }
});

test('the placeholders of each string are the same in both languages', () => {
  const holes = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(STRINGS.en)) assert.deepEqual(holes(STRINGS.zh[key]), holes(STRINGS.en[key]), key);
});

test('every key the sources use exists', async () => {
  const text = await sources();
  const used = new Set([...text.matchAll(/\bt\(\s*'([a-z_]+\.[a-z_.]+)'/g)].map((m) => m[1]));
  assert.ok(used.size > 150, `only ${used.size} keys found: the pattern no longer matches the sources`);
  for (const key of used) assert.ok(key in STRINGS.en, `the page uses "${key}", which has no string`);
  const dynamic = new Set([...text.matchAll(/\bt\(\s*`([a-z_]+)\.\$\{/g)].map((m) => m[1]));
  for (const family of dynamic) {
    assert.ok(FAMILIES[family], `the page builds keys "${family}.…" at run time: list its values in FAMILIES`);
    for (const value of FAMILIES[family]) assert.ok(`${family}.${value}` in STRINGS.en, `${family}.${value} has no string`);
  }
});

test('a message shows what the gateway keeps besides words under a label', async () => {
  const { messageText } = await import(join(webDir, 'ui.js'));
  const call = { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' };
  assert.equal(messageText([{ type: 'text', text: 'Checking.' }, call]), 'Checking.\n[tool call: get_weather] {"city":"Paris"}');
  assert.equal(messageText([{ type: 'tool_result', tool_call_id: 'c1', content: 'sunny' }]), '[tool result] sunny');
  const failed = { type: 'tool_result', tool_call_id: 'c1', is_error: true, content: [{ type: 'text', text: 'boom' }] };
  assert.equal(messageText([failed]), '[tool result · error] boom');
  assert.equal(messageText([{ type: 'system_prompt', text: 'Be kind.' }]), '[system prompt] Be kind.');
  assert.equal(messageText([{ type: 'image_url', image_url: { url: 'cilia-file:x' } }]), '[image]');
});

// The admin page in Debian's Chromium (playwright-core, headless), against the real binary and
// the fake upstream: log in, see today's Chinese messages, pin one, approve a candidate with its
// quote marked in the source, edit an excerpt, search the archive and open the hit, change the
// language, and a memory:read key that sees the views but no button that changes anything; on a
// phone (390×844) and a desktop (1280×800). No request may leave 127.0.0.1 and the console must
// stay free of errors. Screenshots go to tests/e2e/artifacts/admin/ (gitignored); with
// CILIA_DOCS_SCREENSHOTS=1 the ones docs/admin.md shows are written to docs/admin-screenshots/.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { gatewayConfig, MODELS, startFakeUpstream, uniqueId } from './lib/gateway.mjs';
import { binaryExists, ciliaBin, repoRoot, startServer } from './lib/server.mjs';

const CHROMIUM = process.env.CILIA_CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = join(repoRoot, 'tests', 'e2e', 'artifacts', 'admin');
const DOCS_SHOTS = join(repoRoot, 'docs', 'admin-screenshots');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const skip = !binaryExists() ? `no cilia binary at ${ciliaBin}` : !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it)` : null;

const conversation = uniqueId('周末');
const minutesAgo = (n) => new Date(Date.now() - n * 60_000).toISOString();
const MESSAGES = [
  ['u1', 'user', '这个周末我们去大理吧，我想在洱海边骑车。'],
  ['a1', 'assistant', '好主意！洱海边的生态廊道很适合骑行，记得带防晒。'],
  ['u2', 'user', '对了，我不吃香菜，订餐的时候帮我备注一下。'],
  ['a2', 'assistant', '记住了，不要香菜。'],
  ['u3', 'user', '我们周六早上八点出发，先去喜洲古镇。'],
  ['a3', 'assistant', '好的，周六八点出发，第一站喜洲。'],
];
const item = (content, quote, extra = {}) => ({ date: new Date().toISOString().slice(0, 10), content, quote, type: 'fact', fact_key: null, confidence: 0.95, ...extra });
const EXTRACTION = {
  match: 'You excerpt memories',
  reply: JSON.stringify({
    items: [
      item('她不吃香菜。', '我不吃香菜', { type: 'preference', fact_key: 'food.cilantro' }),
      item('周末想在洱海边骑车。', '我想在洱海边骑车', { type: 'plan', confidence: 0.5 }),
      item('周六早上八点出发去喜洲。', '我们周六早上八点出发', { type: 'event', confidence: 0.55 }),
    ],
  }),
};

let upstream;
let server;
let browser;
let readerKey;

before(async () => {
  if (skip) return;
  upstream = await startFakeUpstream();
  const config = `${gatewayConfig({ upstreamUrl: upstream.url, chat: MODELS.anthropic })}
[[prices]]
model = "${MODELS.anthropic}"
input = 3
output = 15
cache_read = 0.3
cache_write = 3.75
currency = "USD"
`;
  server = await startServer({ config, env: { CILIA_JOBS_ENABLED: 'false', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' } });
  const ingest = await server.api('/v1/ingest/messages?sync=true', {
    body: { conversation_id: conversation, title: '大理周末', messages: MESSAGES.map(([id, role, content], i) => ({ id, role, content, created_at: minutesAgo(30 - i) })) },
  });
  assert.equal(ingest.status, 200, ingest.text);
  await upstream.script([EXTRACTION]);
  const run = await server.api('/v1/jobs/extract/run', { method: 'POST' });
  assert.equal(run.json?.outcome, 'ok', run.text);
  assert.equal(run.json.detail.items_candidates, 2, run.text);
  // Two chat turns in one conversation: the second reads the first's cache.
  for (const text of ['你好', '再说一次']) {
    const turn = await server.api('/v1/messages', {
      headers: { 'X-Cilia-Conversation': uniqueId('chat'), 'anthropic-version': '2023-06-01' },
      body: { model: 'companion', max_tokens: 100, messages: [{ role: 'user', content: text }] },
    });
    assert.equal(turn.status, 200, turn.text);
  }
  const key = await server.api('/v1/keys', { body: { name: 'reader', scopes: ['memory:read'] } });
  assert.equal(key.status, 200, key.text);
  readerKey = key.json.key;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  await mkdir(ARTIFACTS, { recursive: true });
  if (process.env.CILIA_DOCS_SCREENSHOTS === '1') await mkdir(DOCS_SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await upstream?.stop();
});

// A browser context on a viewport that records every request and console error, and lets no
// request leave 127.0.0.1.
async function openPage(viewport, { locale = 'en-US', colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, locale, colorScheme, deviceScaleFactor: 1, hasTouch: viewport === PHONE });
  const page = await context.newPage();
  const seen = { offsite: [], errors: [], requests: 0 };
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    seen.requests += 1;
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    seen.offsite.push(url.href);
    return route.abort();
  });
  page.on('console', (msg) => { if (msg.type() === 'error') seen.errors.push(msg.text()); });
  page.on('pageerror', (error) => seen.errors.push(String(error)));
  return {
    page,
    seen,
    async close() {
      await context.close();
      assert.deepEqual(seen.offsite, [], 'requests left 127.0.0.1');
      assert.deepEqual(seen.errors, [], 'console errors');
    },
  };
}

async function login(page, key) {
  await page.goto(`${server.url}/admin`);
  await page.getByLabel(/API key|API 密钥/).fill(key);
  await page.getByRole('button', { name: /Sign in|登录/ }).click();
  await page.locator('nav.nav').waitFor();
}

async function shot(page, name, { docs = false } = {}) {
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
  if (docs && process.env.CILIA_DOCS_SCREENSHOTS === '1') await page.screenshot({ path: join(DOCS_SHOTS, `${name}.png`) });
}

const go = (page, hash) => page.evaluate((h) => { location.hash = h; }, hash);

test('desktop: log in, today in Chinese, pin, approve, edit, search and open, language', { skip: skip || false }, async () => {
  const { page, close } = await openPage(DESKTOP);
  await login(page, server.key);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('cilia.key')), server.key, 'the key is kept in sessionStorage');
  assert.equal(await page.evaluate(() => localStorage.getItem('cilia.key')), null);

  // Today: the ingested Chinese text, and the sidebar (not bottom tabs) on a wide screen.
  const bubble = page.locator('.msg', { hasText: '我不吃香菜' });
  await bubble.waitFor();
  const nav = await page.locator('nav.nav').boundingBox();
  assert.ok(nav.x === 0 && nav.height > 400 && nav.width < 300, `a sidebar: ${JSON.stringify(nav)}`);
  await shot(page, 'today-desktop', { docs: true });

  // Pin a message: the heart turns on and the passage is stored.
  const heart = bubble.getByRole('button', { name: 'Keep as precious' });
  await heart.click();
  await page.locator('.msg', { hasText: '我不吃香菜' }).getByRole('button', { name: 'Kept as precious' }).waitFor();
  const precious = await server.api('/v1/precious');
  assert.ok(precious.json.precious.some((p) => p.content.includes('我不吃香菜')), precious.text);

  // Review: the quote is marked inside its source message; approve one.
  await go(page, '#/review');
  const card = page.locator('.candidate', { hasText: '周末想在洱海边骑车。' });
  await card.locator('mark', { hasText: '我想在洱海边骑车' }).waitFor();
  assert.match(await card.locator('blockquote').innerText(), /这个周末我们去大理吧，我想在洱海边骑车。/);
  await shot(page, 'review-desktop', { docs: true });
  await card.getByRole('button', { name: /^Approve/ }).click();
  await card.waitFor({ state: 'detached' });
  const approved = await server.api('/v1/candidates?status=approved');
  assert.ok(approved.json.candidates.some((c) => c.content === '周末想在洱海边骑车。'), approved.text);

  // Memories: edit an excerpt's content (the one the approval made).
  await go(page, '#/memories');
  const memory = page.locator('.memory', { hasText: '周末想在洱海边骑车。' });
  await memory.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Content').fill('周末想在洱海边骑车，要带防晒。');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.locator('.memory', { hasText: '周末想在洱海边骑车，要带防晒。' }).waitFor();
  const edited = await server.api('/v1/memories?status=active');
  assert.ok(edited.json.memories.some((m) => m.content === '周末想在洱海边骑车，要带防晒。'), edited.text);
  await shot(page, 'memories-desktop', { docs: true });

  // Archive: search, then open the hit: the conversation scrolls to it, marked.
  await go(page, '#/archive');
  await page.getByLabel('Words to find').fill('喜洲古镇');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const hit = page.locator('article.hit', { hasText: '喜洲古镇' });
  await hit.locator('mark', { hasText: '喜洲古镇' }).first().waitFor();
  await page.locator('.cal button').first().waitFor();
  await shot(page, 'archive-desktop', { docs: true });
  await hit.getByRole('link', { name: 'Open' }).click();
  const target = page.locator('.msg.hit');
  await target.waitFor();
  assert.match(await target.innerText(), /周六早上八点出发/);
  assert.ok(await target.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }), 'the hit is in view');
  await shot(page, 'conversation-desktop', { docs: true });

  // Usage and settings: the admin views, with cost from [[prices]].
  await go(page, '#/usage');
  await page.locator('svg.chart').first().waitFor();
  assert.match(await page.locator('.grid-stats').innerText(), /USD/);
  await shot(page, 'usage-desktop', { docs: true });
  await go(page, '#/settings');
  await page.getByText('every window embedded').waitFor();
  assert.doesNotMatch(await page.locator('main').innerText(), /fake-key/, 'the provider key is masked');
  await shot(page, 'settings-desktop', { docs: true });
  await go(page, '#/curated/profile');
  await page.getByRole('tab', { name: 'Profile' }).waitFor();

  // Language: every label follows, and the choice survives a reload.
  await page.getByRole('button', { name: /Switch the language/ }).first().click();
  await page.getByRole('link', { name: '今日' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.reload();
  await page.getByRole('link', { name: '审核' }).waitFor();
  await go(page, '#/today');
  await page.getByRole('heading', { name: /^今日/ }).waitFor();
  await shot(page, 'today-desktop-zh', { docs: true });
  await page.getByRole('button', { name: /把语言切换为/ }).first().click();
  await page.getByRole('link', { name: 'Today' }).waitFor();
  await close();
});

test('phone: bottom tabs, review with big buttons, archive, dark theme', { skip: skip || false }, async () => {
  const { page, close } = await openPage(PHONE, { locale: 'zh-CN', colorScheme: 'dark' });
  await login(page, server.key);
  // The browser asks for Chinese: the page follows it.
  await page.getByRole('link', { name: '今日' }).waitFor();
  await page.locator('.msg', { hasText: '洱海' }).first().waitFor();
  const nav = await page.locator('nav.nav').boundingBox();
  assert.ok(nav.y + nav.height >= PHONE.height - 1 && nav.width === PHONE.width, `bottom tabs: ${JSON.stringify(nav)}`);
  assert.equal(await page.locator('nav.nav a:visible').count(), 5, 'four views and "More"');
  await shot(page, 'today-phone', { docs: true });

  await go(page, '#/review');
  const card = page.locator('.candidate').first();
  await card.locator('mark').first().waitFor();
  const approve = await card.getByRole('button', { name: /^通过/ }).boundingBox();
  assert.ok(approve.height >= 44, `a tappable button: ${approve.height}px`);
  await shot(page, 'review-phone', { docs: true });

  await page.getByRole('link', { name: '更多' }).click();
  await page.getByRole('link', { name: '用量' }).waitFor();
  await go(page, '#/archive?q=%E6%B4%B1%E6%B5%B7');
  await page.locator('article.hit mark').first().waitFor();
  await shot(page, 'archive-phone', { docs: true });
  await close();
});

test('a memory:read key sees the views and no button that changes anything', { skip: skip || false }, async () => {
  const { page, close } = await openPage(DESKTOP);
  await login(page, readerKey);
  await page.locator('.msg', { hasText: '我不吃香菜' }).waitFor();
  assert.equal(await page.locator('button.heart').count(), 0, 'no heart to pin');
  assert.equal(await page.getByText('Background jobs').count(), 0, 'jobs need admin');

  await go(page, '#/review');
  await page.locator('.candidate blockquote mark').first().waitFor();
  assert.equal(await page.locator('.candidate button').count(), 0, 'no review buttons');

  await go(page, '#/memories');
  await page.locator('.memory').first().waitFor();
  assert.equal(await page.locator('.memory button', { hasText: /Edit|Forget|Pin|Archive/ }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'New memory' }).count(), 0);

  await go(page, `#/archive/c/${encodeURIComponent(conversation)}`);
  await page.locator('.msg').first().waitFor();
  assert.equal(await page.getByRole('button', { name: /Forget/ }).count(), 0, 'no forget');

  await go(page, '#/curated/glossary');
  await page.getByText('No glossary terms yet.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'New term' }).count(), 0);

  await go(page, '#/settings');
  await page.getByText('This view needs a key with the admin scope.').waitFor();
  assert.equal(await page.getByRole('button', { name: /Reindex|Import|Export/ }).count(), 0);
  await shot(page, 'readonly-desktop');
  await close();
});

test('the page is small: every file once, under 150 KB compressed, revalidated with a 304', { skip: skip || false }, async () => {
  const { page, seen, close } = await openPage(DESKTOP);
  const assets = new Map();
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/admin')) assets.set(url.pathname, (assets.get(url.pathname) || 0) + 1);
  });
  await page.goto(`${server.url}/admin`);
  await page.getByLabel('API key').waitFor();
  for (const [path, n] of assets) assert.equal(n, 1, `${path} fetched ${n} times`);
  assert.ok(assets.has('/admin/app.css') && assets.has('/admin/views/today.js'), [...assets.keys()].join(' '));

  // What a phone on a slow link downloads: every asset gzip-compressed.
  let compressed = 0;
  for (const path of assets.keys()) {
    const res = await fetch(server.url + path, { headers: { 'Accept-Encoding': 'gzip' } });
    const body = Buffer.from(await res.arrayBuffer());
    const { gzipSync } = await import('node:zlib');
    compressed += res.headers.get('content-encoding') === 'gzip' ? Number(res.headers.get('content-length') || body.length) : gzipSync(body).length;
    const etag = res.headers.get('etag');
    assert.ok(etag, `${path} has an ETag`);
    const again = await fetch(server.url + path, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304, `${path} revalidates`);
  }
  assert.ok(compressed < 150 * 1024, `first view is ${compressed} bytes compressed`);
  console.log(`admin page: ${assets.size} files, ${compressed} bytes compressed, ${seen.requests} requests`);
  await close();
});

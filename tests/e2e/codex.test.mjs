// The real Codex CLI (@openai/codex, pinned in package.json) pointed at cilia: `codex exec` in
// a scratch home whose provider is cilia (wire_api = "responses"), two runs. The second run is a
// new session, yet its upstream request holds what the first run said: the memory is behind the
// Responses API as behind the other wires. Twice: on an upstream that speaks only Chat
// Completions (Codex's built-in tools switched off, cilia would refuse them), and on one that
// speaks Responses, where Codex's requests are passed through with everything it sends.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MODELS, openGateways, uniqueId, waitUntilSearchable } from './lib/gateway.mjs';

const codexBin = join(fileURLToPath(new URL('.', import.meta.url)), 'node_modules', '.bin', 'codex');
const gateways = await openGateways({}, { chat: { chat: MODELS.openai }, responses: { chat: MODELS.responses } });
const homes = [];
after(async () => {
  await gateways.stopAll();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function runCodex(gw, home, prompt, { builtIns }) {
  const switches = builtIns ? [] : ['web_search = "disabled"', '', '[features]', 'multi_agent = false'];
  const config = [
    'model = "companion"',
    'model_provider = "cilia"',
    ...switches,
    '',
    '[model_providers.cilia]',
    'name = "cilia"',
    `base_url = "${gw.url}/v1"`,
    'env_key = "CILIA_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
  writeFileSync(join(home, 'config.toml'), config);
  const env = { ...process.env, CODEX_HOME: home, CILIA_KEY: gw.key, NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1' };
  return new Promise((resolve) => {
    const child = execFile(codexBin, ['exec', '--skip-git-repo-check', '-C', home, prompt], { env, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr }),
    );
    child.stdin.end(); // codex exec reads more of the prompt from an open stdin
  });
}

// Some history first, as any owner has: with an archive of one chat, every word is as common as
// the next and nothing clears the menu's floor.
const HISTORY = [
  ['user', 'We had noodles for lunch at the corner shop near the station.'],
  ['assistant', 'Sounds good! Was it the beef noodle place again?'],
  ['user', 'Yes, and I signed up for the Porto half marathon in May.'],
  ['assistant', 'Great, that gives you about five months of training.'],
  ['user', 'My sister is visiting next weekend, we will go hiking.'],
  ['assistant', 'Have fun, check the weather before you go.'],
];

for (const [kind, gw] of Object.entries(gateways).filter(([name]) => name !== 'stopAll')) {
  test(`codex exec twice on a ${kind} upstream: the second run upstream holds what the first run said`, async (t) => {
    if (gw.skip) return t.skip(gw.skip);
    const home = mkdtempSync(join(tmpdir(), 'cilia-codex-'));
    homes.push(home);
    const builtIns = kind === 'responses';
    const codexExec = (prompt) => runCodex(gw, home, prompt, { builtIns });
    if (!existsSync(codexBin)) return t.skip(`no Codex CLI at ${codexBin} (npm ci in tests/e2e)`);
    const seeded = await gw.api('/v1/ingest/messages?sync=true', {
      body: { conversation_id: uniqueId('history'), messages: HISTORY.map(([role, content]) => ({ role, content })) },
    });
    assert.equal(seeded.status, 200, seeded.text);
    const pet = `Pixel${uniqueId('x').slice(2)}`;
    const question = 'What is my cat called?';
    await gw.upstream.script([
      { match: `my cat is called ${pet}`, reply: `Noted, ${pet}.` },
      { match: question, reply: 'Let me think.' },
    ]);
    const first = await codexExec(`Remember this: my cat is called ${pet}.`);
    assert.equal(first.code, 0, `first run: ${first.stderr.slice(-2000)}`);
    assert.match(first.stdout, new RegExp(`Noted, ${pet}`), first.stdout);
    assert.ok((await waitUntilSearchable(gw, pet, pet)).length, 'the first run is in the archive');
    // Codex opens a session with its <environment_context> as a user message: kept verbatim, but
    // the conversation is titled by the owner's words.
    const conversations = await gw.api('/v1/conversations?limit=100');
    assert.equal(conversations.status, 200, conversations.text);
    const titles = conversations.json.conversations.map((c) => c.title);
    assert.ok(titles.includes(`Remember this: my cat is called ${pet}.`), JSON.stringify(titles));

    const second = await codexExec(question);
    assert.equal(second.code, 0, `second run: ${second.stderr.slice(-2000)}`);
    const requests = await gw.upstream.requests();
    const sent = requests.filter((r) => JSON.stringify(r.body).includes(question));
    assert.ok(sent.length >= 1, 'the second run reached the upstream through cilia');
    assert.ok(JSON.stringify(sent[0].body).includes(pet), 'the second run upstream request holds the first run fact');
    const firstRequests = requests.filter((r) => JSON.stringify(r.body).includes(`Remember this: my cat is called ${pet}`));
    assert.ok(firstRequests.length >= 1);
    assert.ok(JSON.stringify(firstRequests[0].body.tools ?? []).includes('exec_command'), 'Codex tools reach the upstream');
    if (builtIns) {
      const [first] = firstRequests;
      assert.equal(first.path, '/v1/responses');
      assert.deepEqual(first.body.include, ['reasoning.encrypted_content'], 'passed through: what Codex asks of the upstream');
      assert.equal(first.body.store, false);
      assert.equal(typeof first.body.prompt_cache_key, 'string');
      const types = first.body.tools.map((tool) => tool.type);
      assert.ok(types.includes('web_search') && types.includes('namespace'), `built-in tools pass through: ${types.join(' ')}`);
      assert.equal(first.body.tools.at(-1).name, 'recall');
    }
  });
}

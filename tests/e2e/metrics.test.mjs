// GET /metrics on a fresh `cilia serve`: every metric docs/api.md lists is there before anything
// happened — its HELP and TYPE lines as documented, and the zero series of the label sets the
// config makes known — so that the docs and the code cannot drift apart.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'node:test';

import { gatewayConfig, MODELS } from './lib/gateway.mjs';
import { binaryExists, ciliaBin, repoRoot, serverForTest } from './lib/server.mjs';

const skip = binaryExists() ? false : `no cilia binary at ${ciliaBin}`;

// [{name, type}] from the table under GET /metrics in docs/api.md.
async function documentedMetrics() {
  const doc = await readFile(join(repoRoot, 'docs', 'api.md'), 'utf8');
  return [...doc.matchAll(/^\s*\| `(cilia_\w+)` \| (counter|gauge|histogram) \|/gm)].map(([, name, type]) => ({ name, type }));
}

test('a fresh server\'s /metrics has every metric docs/api.md lists, with its type', { skip }, async (t) => {
  const documented = await documentedMetrics();
  assert.ok(documented.length >= 13, `only ${documented.length} metrics found in docs/api.md`);
  const server = await serverForTest(t, {
    config: gatewayConfig({ upstreamUrl: 'http://127.0.0.1:9' }),
    env: { CILIA_JOBS_ENABLED: 'false' }, // no run may count before the scrape
  });
  const reply = await server.api('/metrics');
  assert.equal(reply.status, 200, reply.text);
  for (const { name, type } of documented) {
    assert.match(reply.text, new RegExp(`^# HELP ${name} \\S`, 'm'), `no HELP line for ${name}`);
    assert.match(reply.text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), `${name} is not a ${type}`);
  }
  const zero = [
    'cilia_job_runs_total{job="extract",outcome="failed"} 0',
    'cilia_job_runs_total{job="nightly",outcome="skipped"} 0',
    `cilia_tokens_total{model="${MODELS.openai}",kind="cache_read"} 0`,
    `cilia_extraction_calls_total{model="${MODELS.extract}",outcome="ok"} 0`,
    'cilia_disk_faults_total{kind="disk_full"} 0',
  ];
  for (const line of zero) assert.ok(reply.text.split('\n').includes(line), `no "${line}" in\n${reply.text}`);
});

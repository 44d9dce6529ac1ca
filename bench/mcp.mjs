#!/usr/bin/env node
// memory_search through MCP (the official SDK client, one session, JSON replies) against
// POST /v1/search, on one archive grown to --windows with the synthetic corpus. The same queries
// go both ways, interleaved, so the ratio is measured under the same load. Prints Markdown; writes
// bench/results/mcp.json. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { connectV1 } from '../tests/e2e/lib/mcp.mjs';
import { binaryExists, repoRoot } from '../tests/e2e/lib/server.mjs';
import { openCilia, search } from './lib/cilia.mjs';
import { growArchive } from './lib/grow.mjs';
import { queryMix } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    windows: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
    url: { type: 'string' },
    key: { type: 'string', default: process.env.CILIA_API_KEY },
    data: { type: 'string' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});

const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
};

if (!opts.url && !binaryExists()) {
  console.error('build/cilia is missing: build it first (make)');
  process.exit(1);
}
const cilia = await openCilia({ url: opts.url, key: opts.key, dataDir: opts.data });
try {
  const target = Number(opts.windows);
  const grown = await growArchive(cilia, {
    target,
    seed: Number(opts.seed),
    start: '2024-06-01T00:00:00Z',
    end: '2026-06-01T00:00:00Z',
    log: (line) => console.error(line),
  });
  console.error(`archive: ${grown.windows} windows (${grown.source})`);

  // The SDK client lives in tests/e2e/node_modules; lib/mcp.mjs resolves it from there.
  const { client } = await connectV1(cilia);

  const queries = queryMix({ seed: Number(opts.seed), count: Number(opts.queries) + Number(opts.warmup), samples: ['memory search'] })
    .filter((q) => q.kind !== 'exact');
  const rest = [];
  const mcp = [];
  for (const [i, q] of queries.entries()) {
    const body = { query: q.query, limit: 10 };
    let started = performance.now();
    await search(cilia, body);
    const restMs = performance.now() - started;
    started = performance.now();
    const result = await client.callTool({ name: 'memory_search', arguments: body });
    const mcpMs = performance.now() - started;
    if (result.isError) throw new Error(`memory_search ${q.query}: ${result.content[0].text}`);
    if (i >= Number(opts.warmup)) {
      rest.push(restMs);
      mcp.push(mcpMs);
    }
  }
  await client.close();

  const report = { windows: grown.windows, queries: rest.length, rest: stats(rest), mcp: stats(mcp) };
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'mcp.json'), JSON.stringify(report, null, 2));
  const row = (name, s) => `| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.mean.toFixed(2)} |`;
  console.log(`${report.queries} queries at ${report.windows} windows (client ms)\n`);
  console.log('| path | p50 ms | p99 ms | mean ms |\n|---|---|---|---|');
  console.log(row('POST /v1/search', report.rest));
  console.log(row('MCP tools/call memory_search', report.mcp));
  console.log(`\nMCP / REST: p50 ×${(report.mcp.p50 / report.rest.p50).toFixed(2)}, mean ×${(report.mcp.mean / report.rest.mean).toFixed(2)}`);
} finally {
  await cilia.stop();
}


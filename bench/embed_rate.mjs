#!/usr/bin/env node
// How fast the background indexer embeds an ingested history with a given embedder (issue 18):
// --messages synthetic messages (bench/lib/synth.mjs) go in through `cilia ingest`, then
// `cilia serve` windows and embeds them; the clock runs from the server's start until every
// window has its vector. Without --model the built-in hash embedder, with it
// `[embedding] kind = "local"` on that GGUF file. Prints one Markdown row. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { makeTempDir, removeDir, runCli, startServer } from '../tests/e2e/lib/server.mjs';
import { synthConversations } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000' },
    model: { type: 'string' },
    threads: { type: 'string', default: '2' },
    seed: { type: 'string', default: '1' },
  },
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const count = (db, query) => Number(execFileSync('sqlite3', ['-readonly', db, query], { encoding: 'utf8' }).trim());

async function main() {
  const messages = Number(opts.messages);
  const dir = await makeTempDir('cilia-bench-embed-');
  try {
    const file = join(dir, 'corpus.jsonl');
    const out = createWriteStream(file);
    for (const conversation of synthConversations({ seed: `${opts.seed}-embed`, messages })) {
      if (!out.write(JSON.stringify(conversation) + '\n')) await new Promise((r) => out.once('drain', r));
    }
    await new Promise((r) => out.end(r));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    const run = await runCli(['ingest', file], { dataDir, timeoutMs: 3_600_000 });
    if (run.code !== 0) throw new Error(`cilia ingest failed (${run.code}): ${run.stderr}`);

    const env = opts.model
      ? { CILIA_EMBEDDING_KIND: 'local', CILIA_EMBEDDING_MODEL: opts.model, CILIA_EMBEDDING_THREADS: opts.threads }
      : {};
    const db = join(dataDir, 'ns', 'default', 'cilia.db');
    const started = performance.now();
    const server = await startServer({ dataDir, env, startTimeoutMs: 600_000 });
    let windows = 0;
    try {
      for (const deadline = Date.now() + 6 * 3_600_000; ; await sleep(1000)) {
        const unindexed = count(db, 'SELECT count(*) FROM conversations WHERE indexed_seq < next_seq');
        windows = count(db, 'SELECT count(*) FROM windows');
        const vectors = count(db, 'SELECT count(*) FROM window_vectors');
        if (unindexed === 0 && windows > 0 && vectors === windows) break;
        if (Date.now() > deadline) throw new Error(`embedding did not finish: ${vectors} of ${windows} windows`);
      }
    } finally {
      await server.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const embedder = opts.model ? `local ${opts.model.split('/').pop()}` : 'hash';
    console.log('| embedder | messages | windows | seconds | windows/s | messages/s |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| ${embedder} | ${messages.toLocaleString('en')} | ${windows.toLocaleString('en')} | ${seconds.toFixed(1)} | ` +
                `${(windows / seconds).toFixed(2)} | ${(messages / seconds).toFixed(1)} |`);
  } finally {
    await removeDir(dir);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

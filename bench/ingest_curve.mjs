// The `cilia ingest` rate as the archive grows (issue 16): --step synthetic messages
// (bench/lib/synth.mjs, a new seed and id prefix per step) are written as one JSON Lines file
// and loaded with `cilia ingest` into the same data dir, --steps times; prints the rate of each
// step. Only the ingest itself is timed: it writes the messages, windows, BM25 and (the hash
// embedder being fast) the vectors, in memory and in the same commit, and past the HNSW threshold
// it inserts them into the graph; each step is a new process, which first loads the archive.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../tests/e2e/lib/server.mjs';
import { synthConversations } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    step: { type: 'string', default: '100000' },
    steps: { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
  },
});
const step = Number(opts.step);
const steps = Number(opts.steps);
const dir = mkdtempSync(join(tmpdir(), 'cilia-curve-'));
const dataDir = join(dir, 'data');
mkdirSync(dataDir);
console.log('| messages before | messages after | seconds | messages/s |');
console.log('|---|---|---|---|');
try {
  for (let i = 0; i < steps; i++) {
    const file = join(dir, `step-${i}.jsonl`);
    const out = createWriteStream(file);
    for (const c of synthConversations({ seed: `${opts.seed}-curve-${i}`, messages: step, idPrefix: `curve${i}` })) {
      if (!out.write(JSON.stringify(c) + '\n')) await new Promise((r) => out.once('drain', r));
    }
    await new Promise((r) => out.end(r));
    const started = performance.now();
    const run = await runCli(['ingest', file], { dataDir, timeoutMs: 3_600_000 });
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`cilia ingest failed (${run.code}): ${run.stderr}`);
    rmSync(file);
    console.log(`| ${i * step} | ${(i + 1) * step} | ${seconds.toFixed(1)} | ${Math.round(step / seconds)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

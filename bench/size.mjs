#!/usr/bin/env node
// Archive size (issue 16): how many bytes on disk a synthetic archive of --messages messages takes
// against the UTF-8 bytes of its text, by file and by table and index. Prints Markdown; writes
// bench/results/size.json. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { makeTempDir, removeDir, repoRoot, runCli, startServer } from '../tests/e2e/lib/server.mjs';
import { synthConversations } from './lib/synth.mjs';

const { values: opts } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    forget: { type: 'string', default: '0' }, // share of the conversations to forget once indexed
    keep: { type: 'boolean', default: false }, // keep the temporary data dir (its path is printed)
    // A data dir kept by an earlier run (of the same --messages and --seed): no ingest; served by
    // this build until indexed and until no vector is left in float32 (archives from before
    // float16), then measured. The dir is changed in place.
    data: { type: 'string' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results') },
  },
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sql = (db, query) => {
  const out = execFileSync('sqlite3', ['-readonly', '-json', db, query], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.trim() ? JSON.parse(out) : [];
};

function filesUnder(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    files.push({ path: relative(dir, path), bytes: statSync(path).size });
  }
  return files.sort((a, b) => b.bytes - a.bytes);
}

// FTS5 keeps a virtual table's index in shadow tables named <table>_data, _idx, _config, …;
// they are counted under the virtual table.
function owner(name, virtualTables) {
  for (const v of virtualTables) if (name === v || name.startsWith(`${v}_`)) return v;
  return name;
}

async function main() {
  const messages = Number(opts.messages);
  const dir = await makeTempDir('cilia-bench-size-');
  const report = { messages, seed: opts.seed, started_at: new Date().toISOString() };
  try {
    // The corpus as one JSON Lines file; the text is what the messages say, in UTF-8.
    const file = join(dir, 'corpus.jsonl');
    const out = createWriteStream(file);
    let textBytes = 0;
    let conversations = 0;
    const ids = [];
    for (const conversation of synthConversations({ seed: `${opts.seed}-size`, messages })) {
      for (const m of conversation.messages) textBytes += Buffer.byteLength(m.content, 'utf8');
      conversations++;
      ids.push(conversation.conversation_id);
      if (!out.write(JSON.stringify(conversation) + '\n')) await new Promise((r) => out.once('drain', r));
    }
    await new Promise((r) => out.end(r));
    report.conversations = conversations;
    report.text_bytes = textBytes;
    report.jsonl_bytes = statSync(file).size;

    const dataDir = opts.data ?? join(dir, 'data');
    if (!opts.data) {
      mkdirSync(dataDir);
      const started = performance.now();
      const run = await runCli(['ingest', file], { dataDir, timeoutMs: 3_600_000 });
      report.ingest_seconds = (performance.now() - started) / 1000;
      if (run.code !== 0) throw new Error(`cilia ingest failed (${run.code}): ${run.stderr}`);
    }

    // Serve the data dir until every message is windowed and every window has its vector (what
    // the ingest left to the background indexer), then stop it cleanly: the vector cache is
    // written and the WAL checkpointed on a clean shutdown.
    const db = join(dataDir, 'ns', 'default', 'cilia.db');
    const server = await startServer({ dataDir, startTimeoutMs: 600_000 });
    try {
      for (const deadline = Date.now() + 600_000; ; await sleep(500)) {
        const [state] = sql(db, `SELECT (SELECT count(*) FROM conversations WHERE indexed_seq < next_seq) AS unindexed,
                                        (SELECT count(*) FROM windows) AS windows,
                                        (SELECT count(*) FROM window_vectors) AS vectors,
                                        (SELECT count(*) FROM window_vectors WHERE length(vec) = 4 * dim) AS float32`);
        if (state.unindexed === 0 && state.windows > 0 && state.vectors === state.windows &&
            (!opts.data || state.float32 === 0)) {
          report.windows = state.windows;
          break;
        }
        if (Date.now() > deadline) throw new Error(`indexing did not finish: ${JSON.stringify(state)}`);
      }
      // Forget every other conversation up to the share asked for (spread over the corpus).
      const forget = Math.round(Number(opts.forget) * ids.length);
      report.forgotten_conversations = forget;
      for (let i = 0; i < forget; i++) {
        const id = ids[Math.floor((i * ids.length) / forget)];
        const res = await server.api(`/v1/conversations/${encodeURIComponent(id)}`, { method: 'DELETE' });
        if (res.status !== 200) throw new Error(`forget ${id}: ${res.status} ${res.text}`);
      }
    } finally {
      report.serve_exit = await server.stop({ keepData: true, graceMs: 120_000 });
    }

    report.files = filesUnder(dataDir);
    report.data_dir_bytes = report.files.reduce((a, f) => a + f.bytes, 0);
    report.ratio = report.data_dir_bytes / textBytes;

    const virtualTables = sql(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
      .map((r) => r.name);
    const objects = sql(db, `SELECT d.name AS name, coalesce(s.type, 'internal') AS type, s.tbl_name AS tbl,
                                    sum(d.pgsize) AS bytes, sum(d.payload) AS payload, count(*) AS pages
                             FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY d.name`);
    const byObject = new Map();
    for (const o of objects) {
      const name = o.type === 'index' ? o.name : owner(o.name, virtualTables);
      const entry = byObject.get(name) ?? { name, kind: o.type === 'index' ? `index on ${o.tbl}` : virtualTables.includes(name) ? 'fts5' : 'table', bytes: 0, payload: 0 };
      entry.bytes += o.bytes;
      entry.payload += o.payload;
      byObject.set(name, entry);
    }
    report.objects = [...byObject.values()].sort((a, b) => b.bytes - a.bytes);
    const [pages] = sql(db, 'SELECT * FROM pragma_page_count, pragma_page_size, pragma_freelist_count');
    report.db_pages = pages;

    // What the big tables' columns hold (bytes of each value as stored, before page overhead);
    // a column the archive's schema no longer has (windows.cjk since migration 0010) is left out.
    const columns = (table, wanted) => {
      const present = new Set(sql(db, `SELECT name FROM pragma_table_info('${table}')`).map((r) => r.name));
      const names = wanted.filter((c) => present.has(c));
      return sql(db, `SELECT ${names.map((c) => `sum(length(CAST(${c} AS BLOB))) AS ${c}`).join(', ')} FROM ${table}`)[0];
    };
    report.columns = {
      messages: columns('messages', ['content', 'text', 'content_hash', 'caller_id', 'role', 'name', 'source']),
      windows: columns('windows', ['spans', 'body', 'words', 'cjk']),
      window_vectors: columns('window_vectors', ['embedder', 'vec']),
    };
    if (opts.keep) report.kept_data_dir = dataDir;
  } finally {
    if (!opts.keep) await removeDir(dir);
  }
  return report;
}

function markdown(r) {
  const mb = (b) => (b / 1e6).toFixed(2);
  const x = (b) => `${(b / r.text_bytes).toFixed(2)}×`;
  const lines = ['## size', ''];
  lines.push(`${r.messages} messages in ${r.conversations} conversations, ${r.windows} windows; text ${mb(r.text_bytes)} MB (UTF-8); ` +
    (r.ingest_seconds === undefined ? 'no ingest (--data)' : `cilia ingest ${r.ingest_seconds.toFixed(1)} s`), '');
  if (r.forgotten_conversations) lines.push(`${r.forgotten_conversations} conversations forgotten after indexing`, '');
  lines.push(`**data dir ${mb(r.data_dir_bytes)} MB = ${r.ratio.toFixed(2)}× the text**`, '');
  lines.push('| file | MB | × text |', '|---|---|---|');
  for (const f of r.files) if (f.bytes >= 1000) lines.push(`| ${f.path} | ${mb(f.bytes)} | ${x(f.bytes)} |`);
  lines.push('', `cilia.db by table and index (dbstat; ${r.db_pages.freelist_count} free pages of ${r.db_pages.page_count}):`, '');
  lines.push('| object | kind | MB | × text |', '|---|---|---|---|');
  for (const o of r.objects) if (o.bytes >= 10_000) lines.push(`| ${o.name} | ${o.kind} | ${mb(o.bytes)} | ${x(o.bytes)} |`);
  lines.push('', 'column payloads (MB): ' + Object.entries(r.columns)
    .map(([t, cols]) => `${t}: ` + Object.entries(cols).map(([c, b]) => `${c} ${mb(b ?? 0)}`).join(', ')).join('; '));
  if (r.kept_data_dir) lines.push('', `data dir kept: ${r.kept_data_dir}`);
  return lines.join('\n');
}

const report = await main();
mkdirSync(opts.out, { recursive: true });
writeFileSync(join(opts.out, 'size.json'), JSON.stringify(report, null, 2) + '\n');
console.log(markdown(report));

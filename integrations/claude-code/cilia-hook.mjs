#!/usr/bin/env node
// cilia's memory in Claude Code, as one command hook (README.md beside this file).
//
//   SessionStart      -> GET /v1/boot, printed as additionalContext (the boot pack)
//   UserPromptSubmit  -> POST /v1/recall with the prompt; what other conversations hold, as additionalContext
//   Stop, SessionEnd  -> the transcript's new turns, POST /v1/ingest/messages (ids = the transcript's uuids)
//
// It never blocks or fails a session: every path exits 0, prints nothing unless it has context to
// give, and writes to stderr only when CILIA_HOOK_DEBUG is set. Turns that cannot be sent are kept
// in a buffer file and sent by the next Stop or SessionStart; re-sending is harmless because cilia
// stores a message id once. Node 20's standard library only: no packages.
import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { join } from 'node:path';

const env = process.env;
const debugOn = Boolean(env.CILIA_HOOK_DEBUG);
const debug = (...parts) => {
  if (debugOn) process.stderr.write(`cilia-hook: ${parts.join(' ')}\n`);
};

// Whole-run budgets: a prompt waits for UserPromptSubmit, so it gets the shortest. Each is below
// the `timeout` the settings snippet gives Claude Code, so the hook ends itself first.
const BUDGET_MS = { SessionStart: 3000, UserPromptSubmit: 2000, Stop: 5000, SessionEnd: 3000 };
const CONTEXT_CAP = 9000; // Claude Code replaces hook output over 10,000 characters with a file preview
const PASSAGE_CAP = 1500;
const MESSAGES_PER_REQUEST = 100;
const STALE_CLAIM_MS = 60_000;

function settings(event) {
  const budget = Number(env.CILIA_HOOK_TIMEOUT_MS) || BUDGET_MS[event] || 3000;
  return {
    url: (env.CILIA_URL || 'http://127.0.0.1:8420').replace(/\/+$/, ''),
    key: readKey(),
    budgetMs: budget,
    recallLimit: Math.min(Math.max(Number(env.CILIA_HOOK_RECALL_LIMIT) || 5, 1), 20),
    minScore: env.CILIA_HOOK_MIN_SCORE === undefined ? 0.35 : Number(env.CILIA_HOOK_MIN_SCORE) || 0,
    skipProfile: new Set((env.CILIA_HOOK_SKIP_PROFILE ?? 'persona').split(',').map((s) => s.trim()).filter(Boolean)),
    stateDir: env.CILIA_HOOK_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'cilia', 'claude-code'),
  };
}

function readKey() {
  if (env.CILIA_KEY) return env.CILIA_KEY.trim();
  const file = env.CILIA_KEY_FILE || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'cilia', 'key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

// ---- HTTP -------------------------------------------------------------------------------------

// One request to cilia: {status, json} or {status: 0} when it could not be reached in time.
function call(cfg, method, path, body, timeoutMs) {
  return new Promise((resolve) => {
    let url;
    try {
      url = new URL(cfg.url + path);
    } catch {
      resolve({ status: 0, error: 'bad CILIA_URL' });
      return;
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { accept: 'application/json' };
    if (cfg.key) headers.authorization = `Bearer ${cfg.key}`;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        let json = null;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // not JSON: the status says enough
        }
        resolve({ status: res.statusCode, json });
      });
      res.on('error', (e) => resolve({ status: 0, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ status: 0, error: e.message }));
    req.end(payload);
  });
}

// ---- what goes into Claude's context ---------------------------------------------------------

function clip(text, cap) {
  return text.length <= cap ? text : `${text.slice(0, cap - 1)}…`;
}

function bootText(pack, skipProfile) {
  const parts = [];
  for (const doc of pack.profile ?? []) {
    if (!skipProfile.has(doc.name) && doc.content?.trim()) parts.push(`## Profile: ${doc.name}\n${doc.content.trim()}`);
  }
  if (pack.digest?.text) parts.push(`## Digest\n${pack.digest.text}`);
  if (pack.yesterday?.text) parts.push(`## ${pack.yesterday.day} (yesterday)\n${pack.yesterday.text}`);
  for (const period of ['week', 'month']) {
    if (pack[period]?.text) parts.push(`## ${period} ${pack[period].period}\n${pack[period].text}`);
  }
  if (pack.precious?.length) {
    const lines = pack.precious.map((p) => `- "${p.content}" (${String(p.created_at ?? '').slice(0, 10)}, ${p.conversation_id})`);
    parts.push(`## Precious passages\n${lines.join('\n')}`);
  }
  if (pack.glossary?.length) parts.push(`## Glossary\n${pack.glossary.map((g) => `- ${g.term}: ${g.definition}`).join('\n')}`);
  if (!parts.length) return '';
  const head = `The owner's long-term memory (cilia) as of ${pack.day} in the owner's time zone: their profile, recent digest and kept passages.`;
  return clip(`${head}\n\n${parts.join('\n\n')}`, CONTEXT_CAP);
}

// A result's score is weighted RRF: rank 1 in a lane scores that lane's weight (0.7 lexical, 0.3
// vector by default), times recency (0.7 to 1). The floor keeps what shares words with the prompt
// and drops what only the vector lane found weakly: a prompt that memory knows nothing about
// still gets the nearest passages back, and they are noise in every turn.
function recallText(results, sessionId, minScore) {
  // The session's own turns are already in Claude's context.
  const passages = results
    .filter((r) => r.conversation_id !== sessionId && r.score >= minScore)
    .map((r) => clip(r.text, PASSAGE_CAP));
  if (!passages.length) return '';
  const head = 'Passages from the owner\'s earlier conversations that cilia (long-term memory) found for this prompt, verbatim, best first:';
  let text = head;
  for (const p of passages) {
    if (text.length + p.length + 2 > CONTEXT_CAP) break;
    text += `\n\n${p}`;
  }
  return text === head ? '' : text;
}

function contextOutput(event, text) {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
}

// ---- the transcript ---------------------------------------------------------------------------

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

// The text a transcript message holds: a string, or its text blocks. Tool calls and results,
// thinking and images are left out (README.md, "What is stored").
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n\n');
}

// The cilia message for one transcript line, or null for a line that is not a turn of the main
// conversation: Claude Code's bookkeeping lines, hook attachments, sub-agent lines, its own
// caveats (isMeta), compaction summaries and synthetic API-error replies.
function messageOf(line) {
  if (!line || (line.type !== 'user' && line.type !== 'assistant') || typeof line.uuid !== 'string') return null;
  if (line.isSidechain || line.isMeta || line.isCompactSummary || line.isVisibleInTranscriptOnly || line.isApiErrorMessage) return null;
  const role = line.message?.role;
  if (role !== line.type) return null;
  const text = textOf(line.message.content);
  if (!text.trim()) return null;
  const message = { id: line.uuid, role, content: text };
  if (typeof line.timestamp === 'string' && RFC3339.test(line.timestamp)) message.created_at = line.timestamp;
  return message;
}

// A title from the first prompt the owner typed: user text after any tag blocks it opens with
// (Claude Code's <system-reminder>, a slash command's <command-name>…, a `!` command's
// <bash-input>). cilia keeps such blocks out of the titles it makes itself; a title given at
// ingest is taken as it is, so the hook picks the words.
function titleOf(message) {
  if (message.role !== 'user') return '';
  let text = message.content.trim();
  for (let open = /^<([A-Za-z][\w-]*)>/.exec(text); open; open = /^<([A-Za-z][\w-]*)>/.exec(text)) {
    const close = text.indexOf(`</${open[1]}>`);
    if (close < 0) break; // an opening without a close is the owner's text
    text = text.slice(close + open[1].length + 3).trim();
  }
  return [...text.replace(/\s+/g, ' ')].slice(0, 60).join('');
}

// The complete lines of `file` from byte `offset`: {lines, end} (a line still being written is
// left for the next run).
function readLinesFrom(file, offset) {
  const size = statSync(file).size;
  const from = offset <= size ? offset : 0; // a shorter file was rewritten: read it again
  if (size === from) return { lines: [], end: from };
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(size - from);
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  const lastNewline = buf.lastIndexOf(0x0a);
  if (lastNewline < 0) return { lines: [], end: from };
  const lines = [];
  for (const raw of buf.subarray(0, lastNewline).toString('utf8').split('\n')) {
    if (!raw.trim()) continue;
    try {
      lines.push(JSON.parse(raw));
    } catch {
      debug('skipped a transcript line that is not JSON');
    }
  }
  return { lines, end: from + lastNewline + 1 };
}

// Claude Code may write the transcript after Stop fires; its last_assistant_message tells whether
// the final reply is in yet. Wait a little for it; what is still missing goes with the next run.
// `seen` is the last reply an earlier run read (the one to compare when no line is new).
async function settledMessages(file, offset, lastAssistant, seen, deadline) {
  const want = typeof lastAssistant === 'string' ? lastAssistant.trim() : '';
  for (;;) {
    const read = readLinesFrom(file, offset);
    const messages = read.lines.map(messageOf).filter(Boolean);
    const lastText = messages.filter((m) => m.role === 'assistant').at(-1)?.content.trim() ?? seen;
    if (!want || (lastText && want.endsWith(lastText)) || Date.now() + 100 > deadline) return { read, messages, lastText };
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- state and the buffer ---------------------------------------------------------------------

const safeName = (id) => String(id).replace(/[^A-Za-z0-9._-]/g, '_');

function loadState(cfg, sessionId) {
  try {
    return JSON.parse(readFileSync(join(cfg.stateDir, 'sessions', `${safeName(sessionId)}.json`), 'utf8'));
  } catch {
    return { offset: 0, title: '' };
  }
}

function saveState(cfg, sessionId, state) {
  const dir = join(cfg.stateDir, 'sessions');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${safeName(sessionId)}.json`);
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(state));
  renameSync(`${file}.${process.pid}`, file);
}

const bufferDir = (cfg) => join(cfg.stateDir, 'buffer');

// One file per run, named so that a session's files sort in the order they were written.
function bufferRequests(cfg, sessionId, bodies) {
  mkdirSync(bufferDir(cfg), { recursive: true });
  const name = `${safeName(sessionId)}~${String(Date.now()).padStart(15, '0')}~${process.pid}.jsonl`;
  appendFileSync(join(bufferDir(cfg), name), bodies.map((b) => `${JSON.stringify(b)}\n`).join(''));
}

// How one ingest request went: 'done' (stored, or refused for good), or 'retry' (cilia is down,
// slow, or refused the key: keep it for the next run).
async function ingest(cfg, body, timeoutMs) {
  const reply = await call(cfg, 'POST', '/v1/ingest/messages', body, timeoutMs);
  if (reply.status === 200) return 'done';
  if (reply.status === 409 && body.messages.length > 1) {
    // One message id already stored with other content (its transcript line was rewritten): send
    // the others one by one so that only that message is left out.
    for (const m of body.messages) {
      if ((await ingest(cfg, { ...body, messages: [m] }, timeoutMs)) === 'retry') return 'retry';
    }
    return 'done';
  }
  const retry = reply.status === 0 || reply.status >= 500 || [401, 403, 408, 429].includes(reply.status);
  debug(`ingest ${body.conversation_id}: ${reply.status || reply.error}${retry ? ', kept for the next run' : ', dropped'}`,
    reply.json?.error?.message ?? '');
  return retry ? 'retry' : 'done';
}

// Sends the buffered requests, oldest first per session, until the deadline or cilia fails. A
// file is claimed by renaming it, so two hooks running at once never send the same file.
async function flush(cfg, deadline) {
  let names;
  try {
    names = readdirSync(bufferDir(cfg)).sort();
  } catch {
    return;
  }
  const stalled = new Set();
  for (const name of names) {
    const path = join(bufferDir(cfg), name);
    const sending = /^(.*\.jsonl)\.sending-\d+$/.exec(name);
    if (sending) {
      // A run that was ended while sending: put its file back once it is clearly abandoned.
      try {
        if (Date.now() - statSync(path).mtimeMs > STALE_CLAIM_MS) renameSync(path, join(bufferDir(cfg), sending[1]));
      } catch {
        // another run took it
      }
      stalled.add(name.split('~')[0]);
      continue;
    }
    if (!name.endsWith('.jsonl')) continue;
    const session = name.split('~')[0];
    if (stalled.has(session)) continue; // keep a session's requests in order
    const remaining = deadline - Date.now();
    if (remaining < 200) return;
    const claimed = `${path}.sending-${process.pid}`;
    try {
      renameSync(path, claimed);
      utimesSync(claimed, new Date(), new Date()); // the claim's age, for the stale check above
    } catch {
      stalled.add(session);
      continue;
    }
    const bodies = readFileSync(claimed, 'utf8').split('\n').flatMap((l) => {
      try {
        return l ? [JSON.parse(l)] : [];
      } catch {
        return []; // a line cut short when a run was ended mid-write
      }
    });
    let sent = 0;
    while (sent < bodies.length && deadline - Date.now() >= 200) {
      if ((await ingest(cfg, bodies[sent], Math.min(3000, deadline - Date.now()))) === 'retry') break;
      sent += 1;
    }
    if (sent === bodies.length) {
      unlinkSync(claimed);
      continue;
    }
    writeFileSync(claimed, bodies.slice(sent).map((b) => `${JSON.stringify(b)}\n`).join(''));
    renameSync(claimed, path);
    stalled.add(session);
  }
}

// The session's turns since the last run go into the buffer (and the state moves past them), then
// the buffer is sent: a run ended at any point loses nothing.
async function collect(cfg, input, deadline) {
  const sessionId = input.session_id;
  const file = input.transcript_path;
  if (!sessionId || !file) return;
  const state = loadState(cfg, sessionId);
  let settled;
  try {
    const waitUntil = Math.min(deadline - 1500, Date.now() + 1000);
    settled = await settledMessages(file, state.offset ?? 0, input.last_assistant_message, state.reply ?? '', waitUntil);
  } catch (e) {
    debug(`transcript ${file}: ${e.message}`);
    return;
  }
  const { read, messages, lastText } = settled;
  if (read.end < (state.offset ?? 0)) state.title = ''; // rewritten from the start
  if (!state.title) state.title = messages.map(titleOf).find(Boolean) ?? '';
  if (messages.length) {
    const bodies = [];
    for (let i = 0; i < messages.length; i += MESSAGES_PER_REQUEST) {
      const body = { conversation_id: sessionId, messages: messages.slice(i, i + MESSAGES_PER_REQUEST) };
      if (state.title) body.title = state.title;
      bodies.push(body);
    }
    bufferRequests(cfg, sessionId, bodies);
  }
  saveState(cfg, sessionId, { offset: read.end, title: state.title, reply: lastText ?? '' });
}

// ---- the events -------------------------------------------------------------------------------

async function sessionStart(cfg, input, deadline) {
  const reply = await call(cfg, 'GET', '/v1/boot', undefined, Math.min(2000, deadline - Date.now()));
  const text = reply.status === 200 && reply.json ? bootText(reply.json, cfg.skipProfile) : '';
  if (reply.status !== 200) debug(`boot: ${reply.status || reply.error}`);
  if (text) await writeOut(contextOutput('SessionStart', text));
  if (reply.status === 0) return; // cilia is not there: nothing to send to either
  // A resumed or compacted session may have turns no Stop sent; and earlier runs' buffer.
  await collect(cfg, input, deadline);
  await flush(cfg, deadline);
}

async function userPromptSubmit(cfg, input, deadline) {
  const prompt = typeof input.prompt === 'string' ? input.prompt.trim() : '';
  if (!prompt || /^\/\S+$/.test(prompt)) return; // a bare slash command asks nothing of memory
  const reply = await call(cfg, 'POST', '/v1/recall', { query: prompt, limit: cfg.recallLimit }, Math.max(100, deadline - Date.now() - 50));
  if (reply.status !== 200 || !Array.isArray(reply.json?.results)) {
    debug(`recall: ${reply.status || reply.error}`);
    return;
  }
  const text = recallText(reply.json.results, input.session_id, cfg.minScore);
  if (text) await writeOut(contextOutput('UserPromptSubmit', text));
}

async function stop(cfg, input, deadline) {
  await collect(cfg, input, deadline);
  await flush(cfg, deadline);
}

const HANDLERS = { SessionStart: sessionStart, UserPromptSubmit: userPromptSubmit, Stop: stop, SessionEnd: stop };

function writeOut(text) {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

function readStdin(timeoutMs) {
  return new Promise((resolve) => {
    const chunks = [];
    const timer = setTimeout(() => resolve(Buffer.concat(chunks).toString('utf8')), timeoutMs);
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', () => resolve(''));
  });
}

async function main() {
  const started = Date.now();
  if (env.CILIA_HOOK_OFF === '1') return;
  const input = JSON.parse((await readStdin(1000)) || '{}');
  const event = input.hook_event_name;
  const handler = HANDLERS[event];
  if (!handler) return;
  const cfg = settings(event);
  const deadline = started + cfg.budgetMs;
  // Past the budget the hook gives up silently rather than let Claude Code's timeout fire.
  setTimeout(() => process.exit(0), cfg.budgetMs).unref();
  await handler(cfg, input, deadline);
  debug(`${event} took ${Date.now() - started} ms`);
}

main()
  .catch((e) => debug(`failed: ${e?.stack ?? e}`))
  .finally(() => process.exit(0));

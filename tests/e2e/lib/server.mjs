// Drives the real `cilia` binary: a server on a loopback port with its own data dir and key,
// the CLI on a data dir, and a small fetch wrapper. Shared by the e2e tests and the benchmarks.
//
// With CILIA_E2E_STORE=postgres (`make e2e-pg`, inside scripts/pg-test.sh, which exports
// CILIA_TEST_PG_URL and CILIA_TEST_PG_SUPERUSER_URL) every data dir gets a fresh PostgreSQL
// database of its own, created when a server or CLI run first uses the dir and dropped when the
// dir is removed: servers and CLI runs on one data dir share one database, as gateways of one
// deployment would, and tests stay apart.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const ciliaBin = process.env.CILIA_BIN || join(repoRoot, 'build', 'cilia');

export function binaryExists() {
  return existsSync(ciliaBin);
}

// A file outside every data dir, removed after the test.
export async function fileForTest(t, name, content) {
  const dir = await makeTempDir('cilia-e2e-files-');
  t.after(() => removeDir(dir));
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

export async function makeTempDir(prefix = 'cilia-e2e-') {
  return mkdtemp(join(tmpdir(), prefix));
}

export const storeKind = process.env.CILIA_E2E_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = storeKind === 'postgres';

const storeDatabases = new Map(); // resolved data dir -> {name, created: Promise}
let nextDatabase = 0;

// Runs SQL as the test cluster's superuser; resolves to psql's output (unaligned, no headers).
export function psqlSuper(sql, { database } = {}) {
  let url = process.env.CILIA_TEST_PG_SUPERUSER_URL;
  if (!url) return Promise.reject(new Error('CILIA_E2E_STORE=postgres needs CILIA_TEST_PG_SUPERUSER_URL (run inside scripts/pg-test.sh)'));
  if (database) url = withDatabase(url, database);
  return new Promise((resolveRun, reject) => {
    execFile('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql], (error, stdout, stderr) =>
      error ? reject(new Error(`psql: ${sql}: ${stderr || error.message}`)) : resolveRun(stdout));
  });
}

// postgresql:///cilia_test?host=… with another database.
function withDatabase(url, database) {
  return url.replace(/^(postgresql:\/\/[^/?]*\/)[^?]*/, `$1${database}`);
}

// The store settings a cilia process on `dataDir` gets: none on SQLite (the data dir is the
// store); on PostgreSQL the data dir's database, created on first use.
export async function storeEnv(dataDir) {
  if (!onPostgres || !dataDir) return {};
  return postgresEnv(dataDir);
}

// The data dir's PostgreSQL database, created on first use and dropped by removeDir, whatever
// CILIA_E2E_STORE says: for a benchmark that runs one server on each store.
export async function postgresEnv(dataDir) {
  if (!process.env.CILIA_TEST_PG_URL) throw new Error('a PostgreSQL store needs CILIA_TEST_PG_URL (run inside scripts/pg-test.sh)');
  const key = resolve(dataDir);
  if (!storeDatabases.has(key)) {
    // The promise is kept, so that runs started together on one dir share one database.
    const name = `cilia_e2e_${process.pid}_${nextDatabase++}`;
    storeDatabases.set(key, { name, created: psqlSuper(`CREATE DATABASE ${name} OWNER cilia`) });
  }
  const database = storeDatabases.get(key);
  await database.created;
  return { CILIA_STORE_KIND: 'postgres', CILIA_STORE_URL: withDatabase(process.env.CILIA_TEST_PG_URL, database.name) };
}

// The PostgreSQL database of a data dir (null on SQLite, or before a process used the dir).
export function storeDatabaseOf(dataDir) {
  return storeDatabases.get(resolve(dataDir))?.name ?? null;
}

export async function removeDir(dir) {
  await rm(dir, { recursive: true, force: true });
  const database = storeDatabases.get(resolve(dir));
  if (database) {
    storeDatabases.delete(resolve(dir));
    await database.created.catch(() => {});
    await psqlSuper(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
  }
}

export function randomKey() {
  return `cilia_test_${randomBytes(24).toString('hex')}`;
}

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

// The environment every cilia process gets: nothing inherited from the caller's CILIA_* settings,
// owner time zone UTC so dates in headers equal the UTC dates of created_at, built-in embedder.
function ciliaEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('CILIA_')) env[name] = value;
  }
  return { ...env, CILIA_SERVER_TIME_ZONE: 'UTC', CILIA_EMBEDDING_KIND: 'hash', ...extra };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A fetch wrapper. `body` may be an object (sent as JSON), a string or a Buffer (sent as is).
// Returns {status, headers, text, json} where json is null when the reply is not JSON.
export async function request(baseUrl, path, { method, body, key, headers = {}, timeoutMs = 60_000 } = {}) {
  const sendHeaders = { ...headers };
  if (key) sendHeaders.authorization = `Bearer ${key}`;
  let payload;
  if (body !== undefined) {
    payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    sendHeaders['content-type'] ??= 'application/json';
  }
  const reply = await fetch(baseUrl + path, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: sendHeaders,
    body: payload,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await reply.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: callers look at `text`
  }
  return { status: reply.status, headers: reply.headers, text, json };
}

export function waitForExit(proc, timeoutMs) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => resolveExit(false), timeoutMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });
}

// Starts `cilia serve` and waits until GET /health answers 200.
// Options: dataDir (else a fresh temp dir, removed by stop()), key, env, args, startTimeoutMs,
// config (TOML text: written to a temp file of its own, passed as --config, removed by stop()).
export async function startServer({ dataDir, key = randomKey(), env = {}, args = [], config, startTimeoutMs = 30_000 } = {}) {
  const ownsDataDir = !dataDir;
  const dir = dataDir ?? (await makeTempDir());
  const configDir = config === undefined ? null : await makeTempDir('cilia-config-');
  const configArgs = [];
  if (configDir) {
    const file = join(configDir, 'cilia.toml');
    await writeFile(file, config);
    configArgs.push('--config', file);
  }
  // What the server owns on disk: the config file always, the data dir unless it is kept.
  const cleanUp = async ({ keepData = false } = {}) => {
    if (configDir) await removeDir(configDir);
    if (ownsDataDir && !keepData) await removeDir(dir);
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const store = await storeEnv(dir);
  const proc = spawn(ciliaBin, ['serve', '--data', dir, '--listen', `127.0.0.1:${port}`, ...configArgs, ...args], {
    cwd: dir,
    env: ciliaEnv({ CILIA_API_KEY: key, ...store, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  const spawnError = new Promise((_, reject) => proc.once('error', reject));
  spawnError.catch(() => {});

  const server = {
    url,
    port,
    key,
    dataDir: dir,
    proc,
    get pid() {
      return proc.pid;
    },
    output: () => output,
    api: (path, options = {}) => request(url, path, { key, ...options }),
    // SIGTERM and wait; SIGKILL after the grace period. Returns the exit code (or signal name).
    async stop({ keepData = false, graceMs = 15_000 } = {}) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        if (!(await waitForExit(proc, graceMs))) {
          proc.kill('SIGKILL');
          await waitForExit(proc, 5_000);
        }
      }
      await cleanUp({ keepData });
      return proc.exitCode ?? proc.signalCode;
    },
    // SIGKILL at once, as a crash would; the data dir is kept.
    async kill() {
      proc.kill('SIGKILL');
      await waitForExit(proc, 5_000);
      await cleanUp({ keepData: true });
    },
  };

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await cleanUp();
      throw new Error(`cilia serve exited (${proc.exitCode ?? proc.signalCode}) before /health answered:\n${output}`);
    }
    try {
      const health = await Promise.race([request(url, '/health', { timeoutMs: 2_000 }), spawnError]);
      if (health.status === 200) return server;
    } catch (error) {
      if (error?.code === 'ENOENT') {
        await cleanUp();
        throw new Error(`cilia binary not found at ${ciliaBin}`);
      }
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(`cilia serve did not answer GET /health within ${startTimeoutMs} ms:\n${output}`);
}

// Runs `cilia <args> --data <dataDir>` (no --data when dataDir is null) and captures its output.
// Returns {code, signal, stdout, stderr, stdoutBytes}; stdoutBytes is the raw Buffer.
export async function runCli(args, { dataDir, env = {}, cwd, input, timeoutMs = 120_000 } = {}) {
  const fullArgs = dataDir ? [...args, '--data', dataDir] : [...args];
  const store = await storeEnv(dataDir);
  return new Promise((resolveRun, reject) => {
    const proc = spawn(ciliaBin, fullArgs, {
      cwd: cwd ?? dataDir ?? repoRoot,
      env: ciliaEnv({ ...store, ...env }),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    proc.stdout.on('data', (c) => out.push(c));
    proc.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolveRun({ code, signal, stdout: stdoutBytes.toString(), stderr: Buffer.concat(err).toString(), stdoutBytes });
    });
    if (input !== undefined) proc.stdin.end(input);
  });
}

// node:test helpers: a server (or a data dir) that lives for one test and is cleaned up after it.
export async function serverForTest(t, options) {
  const server = await startServer(options);
  t.after(() => server.stop());
  return server;
}

export async function dataDirForTest(t) {
  const dir = await makeTempDir();
  t.after(() => removeDir(dir));
  return dir;
}

// A series' value in GET /metrics' Prometheus text, e.g. `cilia_turns_total{model="m",status="200"}`
// (0 when absent).
export function metricValue(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

// The Dockerfile, checked without Docker (the test machines have no Docker daemon, and nothing
// may be downloaded at test time, so it is never built here): a Debian 12 base, the packages from
// scripts/setup.sh's groups, a non-root user, the volume, port and listen address agreeing, the
// HEALTHCHECK command run against a real server, and a .dockerignore that lets in every file
// the cilia target is built from (as ninja knows them) and keeps data/ and build/ out.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import test from 'node:test';

import { binaryExists, ciliaBin, freePort, repoRoot, serverForTest } from './lib/server.mjs';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8');

// Instructions with continuation lines joined and comments dropped, split into stages.
function parseDockerfile(text) {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, op, args] = line.match(/^(\S+)\s+(.*)$/);
      return { op: op.toUpperCase(), args };
    });
  const stages = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') stages.push({ from: ins.args, instructions: [] });
    else stages.at(-1).instructions.push(ins);
  }
  return stages;
}

const stages = parseDockerfile(dockerfile);
const runtime = stages.at(-1);
const last = (stage, op) => stage.instructions.filter((ins) => ins.op === op).at(-1)?.args;
const jsonArgs = (args) => JSON.parse(args);

// Docker's .dockerignore rules: a path is left out when the last pattern matching it, or one of
// its parent folders, is not negated ('*' within a segment, '**' across them).
function globToRegExp(pattern) {
  const body = pattern
    .replace(/\/+$/, '')
    .split('')
    .map((c, i, all) => {
      if (c === '*') return all[i + 1] === '*' ? '' : all[i - 1] === '*' ? '.*' : '[^/]*';
      if (c === '?') return '[^/]';
      return /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
    })
    .join('');
  return new RegExp(`^${body}$`);
}
const ignoreRules = dockerignore
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => ({ negated: line.startsWith('!'), re: globToRegExp(line.replace(/^!/, '')) }));
function inContext(path) {
  const prefixes = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  let included = true;
  for (const rule of ignoreRules) {
    if (prefixes.some((prefix) => rule.re.test(prefix))) included = rule.negated;
  }
  return included;
}

test('both stages are Debian 12', () => {
  assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
  for (const stage of stages) assert.match(stage.from, /^debian:(12|bookworm)(-slim)?(\s+AS\s+\S+)?$/i, stage.from);
});

test('the stages install setup.sh\'s build and runtime groups, and the build stage builds the default preset', () => {
  const runs = (stage) => stage.instructions.filter((ins) => ins.op === 'RUN').map((ins) => ins.args).join('\n');
  assert.match(runs(stages[0]), /bash scripts\/setup\.sh --build\b/);
  assert.match(runs(stages[0]), /cmake --preset default\b/);
  assert.match(runs(stages[0]), /cmake --build --preset default --target cilia\b/);
  assert.match(runs(runtime), /bash \/tmp\/setup\.sh --runtime\b/);
  assert.doesNotMatch(runs(runtime), /apt-get install/, 'runtime packages come from setup.sh --runtime only');
  for (const group of ['build', 'runtime']) {
    const listed = execFileSync('bash', [join(repoRoot, 'scripts/setup.sh'), '--list', group], { encoding: 'utf8' });
    assert.ok(listed.trim().split('\n').length > 3, `setup.sh --list ${group}: ${listed}`);
  }
  const copied = runtime.instructions.find((ins) => ins.op === 'COPY' && ins.args.startsWith('--from='));
  assert.match(copied.args, /\/src\/build\/cilia \/usr\/bin\/cilia$/);
  assert.equal(stages[0].instructions.find((ins) => ins.op === 'WORKDIR').args, '/src');
});

test('runs as a non-root user, on the volume, listening on every address of the exposed port', () => {
  const user = last(runtime, 'USER');
  assert.ok(user && !['root', '0'].includes(user.split(':')[0]), `USER ${user}`);
  assert.match(runtime.instructions.filter((ins) => ins.op === 'RUN').map((ins) => ins.args).join('\n'), new RegExp(`useradd --system .* ${user}\\b`));

  const entry = jsonArgs(last(runtime, 'ENTRYPOINT'));
  const cmd = jsonArgs(last(runtime, 'CMD'));
  assert.deepEqual(entry, ['/usr/bin/cilia']);
  assert.equal(cmd[0], 'serve');
  const dataDir = cmd[cmd.indexOf('--data') + 1];
  assert.equal(last(runtime, 'VOLUME'), dataDir);
  const config = cmd[cmd.indexOf('--config') + 1];
  const configCopy = runtime.instructions.find((ins) => ins.op === 'COPY' && ins.args.endsWith(` ${config}`));
  assert.ok(configCopy && existsSync(join(repoRoot, configCopy.args.split(/\s+/)[0])), `a COPY of ${config}`);

  const listen = last(runtime, 'ENV').match(/^CILIA_SERVER_LISTEN=(\S+)$/);
  assert.ok(listen, 'ENV CILIA_SERVER_LISTEN=HOST:PORT');
  const [host, port] = listen[1].split(':');
  assert.equal(host, '0.0.0.0', 'a published port reaches the container on its own address, not its loopback');
  assert.equal(last(runtime, 'EXPOSE'), port);
  assert.ok(jsonArgs(last(runtime, 'HEALTHCHECK').replace(/^.*?CMD\s+/, '')).join(' ').includes(`/${port}`));
});

test('the HEALTHCHECK command passes against a running cilia and fails when nothing listens', { skip: binaryExists() ? false : `no cilia binary at ${ciliaBin}` }, async (t) => {
  const healthcheck = last(runtime, 'HEALTHCHECK');
  assert.match(healthcheck, /--interval=\S+ --timeout=\S+/);
  const command = jsonArgs(healthcheck.replace(/^.*?CMD\s+/, ''));
  const port = last(runtime, 'EXPOSE');
  const against = (p) => command.map((arg) => arg.replaceAll(`/${port}`, `/${p}`));
  const runIt = (args) => spawnSync(args[0], args.slice(1), { encoding: 'utf8', timeout: 10_000 });

  const server = await serverForTest(t);
  const up = runIt(against(server.port));
  assert.equal(up.status, 0, up.stderr);
  const down = runIt(against(await freePort()));
  assert.notEqual(down.status, 0, 'the health check passed with nothing listening');
});

test('.dockerignore lets in every file build/cilia is made from, and keeps data and builds out', { skip: existsSync(join(repoRoot, 'build', 'build.ninja')) ? false : 'no build/build.ninja (configure with cmake --preset default)' }, () => {
  const build = join(repoRoot, 'build');
  const ninja = (...args) => execFileSync('ninja', ['-C', build, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  // Sources, embedded assets and generator scripts of the target; the headers its objects
  // included (ninja's deps log); the CMake files the configure step read.
  const inputs = ninja('-t', 'inputs', 'cilia').split('\n');
  const headers = ninja('-t', 'deps').split('\n').filter((line) => line.startsWith('    ')).map((line) => line.trim());
  const cmakeInputs = readFileSync(join(build, 'build.ninja'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('build build.ninja:'))
    .split(/\s+/);
  const repoFiles = new Set();
  for (const file of [...inputs, ...headers, ...cmakeInputs]) {
    if (!file) continue;
    const path = relative(repoRoot, file.startsWith('/') ? file : join(build, file));
    if (path.startsWith('..') || path.startsWith('build/') || path.startsWith('/') || !existsSync(join(repoRoot, path))) continue;
    repoFiles.add(path);
  }
  assert.ok(repoFiles.size > 100, `only ${repoFiles.size} repository files found as inputs`);
  for (const required of ['CMakeLists.txt', 'src/main.cpp', 'docs/openapi.json']) assert.ok(repoFiles.has(required), required);
  // third_party/ (llama.cpp's source) stays out: the build stage's `setup.sh --build` fetches the
  // same pinned copy itself.
  const leftOut = [...repoFiles].filter(
    (path) => !inContext(path) && !path.startsWith('tests/') && !path.startsWith('bench/') && !path.startsWith('third_party/'),
  );
  assert.ok(!inContext('third_party/llama.cpp/CMakeLists.txt'), 'third_party/ would go into the image');
  assert.deepEqual(leftOut, [], 'files the build reads that .dockerignore leaves out of the context');
  for (const path of ['scripts/setup.sh', 'packaging/cilia.toml']) assert.ok(inContext(path), path);
  for (const path of ['data/admin.key', 'build/cilia', 'build-asan/x', '.git/config', 'tests/e2e/node_modules/x/index.js']) {
    assert.ok(!inContext(path), `${path} would go into the image`);
  }
});

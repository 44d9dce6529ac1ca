// The .deb (cmake/packaging.cmake): built with cpack from the existing build/, then checked as
// dpkg sees it — control fields, contents, conffiles, maintainer scripts, the systemd unit — and
// unpacked into a scratch root whose binary runs `cilia serve` with the shipped config. The test
// machines run no systemd, so the unit is checked with `systemd-analyze` offline, not started.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';

import { binaryExists, ciliaBin, freePort, makeTempDir, removeDir, repoRoot, request, waitForExit } from './lib/server.mjs';

const buildDir = join(repoRoot, 'build');
const onPath = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missingTool = ['cpack', 'dpkg-deb', 'dpkg-shlibdeps'].find((tool) => !onPath(tool));
const skip = !binaryExists()
  ? `no cilia binary at ${ciliaBin}`
  : !existsSync(join(buildDir, 'CPackConfig.cmake'))
    ? `no ${buildDir}/CPackConfig.cmake (configure with cmake --preset default)`
    : missingTool
      ? `${missingTool} is not installed (bash scripts/setup.sh)`
      : false;

const run = (cmd, args, options = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });

// The files the package may hold, and nothing else.
const allowedDirs = ['./usr/bin/', './lib/systemd/system/', './etc/cilia/', './usr/share/doc/cilia/'];
const docs = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md'))];
const expectedFiles = [
  './usr/bin/cilia',
  './lib/systemd/system/cilia.service',
  './etc/cilia/cilia.toml',
  ...docs.map((name) => `./usr/share/doc/cilia/${name}`),
];

// Options the unit must keep, and their values (packaging/cilia.service says why each).
const hardening = {
  User: 'cilia',
  Group: 'cilia',
  StateDirectory: 'cilia',
  Restart: 'on-failure',
  UMask: '0077',
  NoNewPrivileges: 'yes',
  CapabilityBoundingSet: '',
  ProtectSystem: 'strict',
  ProtectHome: 'yes',
  PrivateTmp: 'yes',
  PrivateDevices: 'yes',
  ProtectKernelTunables: 'yes',
  ProtectKernelModules: 'yes',
  ProtectKernelLogs: 'yes',
  ProtectControlGroups: 'yes',
  ProtectClock: 'yes',
  ProtectHostname: 'yes',
  RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
  RestrictNamespaces: 'yes',
  LockPersonality: 'yes',
  MemoryDenyWriteExecute: 'yes',
  RestrictRealtime: 'yes',
  RestrictSUIDSGID: 'yes',
  SystemCallArchitectures: 'native',
  SystemCallFilter: '@system-service',
};

// [Section] Key=Value lines of a unit file, comments dropped; a key given twice keeps the last.
function parseUnit(text) {
  const sections = {};
  let current = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = line.match(/^\[(.+)\]$/);
    if (header) {
      current = sections[header[1]] = {};
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(current && eq > 0, `unit line outside a section or without '=': ${line}`);
    current[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return sections;
}

// Lines that call systemctl or deb-systemd-invoke outside an `if` that tests /run/systemd/system:
// those would fail (or hang) where no systemd runs, as in a container.
function unguardedSystemdCalls(script) {
  const open = [];
  const bad = [];
  for (const raw of script.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (/^if\b/.test(line)) open.push(line);
    if (/\b(systemctl|deb-systemd-invoke)\b/.test(line) && !open.some((cond) => cond.includes('/run/systemd/system'))) {
      bad.push(raw.trim());
    }
    if (/^fi\b/.test(line) || /;\s*fi$/.test(line)) open.pop();
  }
  return bad;
}

test('the .deb', { skip, timeout: 180_000 }, async (t) => {
  const work = await makeTempDir('cilia-deb-');
  t.after(() => removeDir(work));
  // -B keeps the package and CPack's staging out of build/.
  run('cpack', ['--config', join(buildDir, 'CPackConfig.cmake'), '-B', work], { cwd: buildDir });
  const debs = readdirSync(work).filter((name) => name.endsWith('.deb'));
  assert.equal(debs.length, 1, `cpack wrote ${debs.join(', ') || 'no .deb'}`);
  const deb = join(work, debs[0]);
  const version = run(ciliaBin, ['version']).trim().replace(/^cilia /, '');
  const arch = run('dpkg', ['--print-architecture']).trim();
  assert.equal(debs[0], `cilia_${version}_${arch}.deb`);

  await t.test('control fields: name, the binary\'s version, architecture, computed Depends', () => {
    const field = (name) => run('dpkg-deb', ['--field', deb, name]).trim();
    assert.equal(field('Package'), 'cilia');
    assert.equal(field('Version'), version);
    assert.equal(field('Architecture'), arch);
    assert.ok(field('Maintainer'));
    assert.ok(field('Description').startsWith('long-term memory gateway'));
    const depends = field('Depends')
      .split(',')
      .map((dep) => dep.trim().split(/[\s(]/)[0]);
    // From dpkg-shlibdeps: what the binary links, not a hand-kept list.
    for (const lib of ['libc6', 'libstdc++6', 'libsqlite3-0', 'libcurl4', 'libicu72', 'libcpp-httplib0.11']) {
      assert.ok(depends.includes(lib), `Depends lacks ${lib}: ${depends.join(', ')}`);
    }
    assert.ok(depends.includes('adduser'), 'postinst runs adduser');
    // The Dockerfile's runtime stage installs setup.sh's runtime group: it must hold every library.
    const runtime = run('bash', [join(repoRoot, 'scripts/setup.sh'), '--list', 'runtime']).split('\n');
    const missing = depends.filter((dep) => dep !== 'adduser' && !runtime.includes(dep));
    assert.deepEqual(missing, [], 'libraries the binary links that setup.sh --runtime (and so the Docker image) lacks');
  });

  await t.test('contents: the binary, the unit, the conffile and the docs, nothing else, owned by root', () => {
    const entries = run('dpkg-deb', ['--contents', deb])
      .trim()
      .split('\n')
      .map((line) => {
        const [mode, owner, , , , path] = line.split(/\s+/);
        return { mode, owner, path };
      });
    const files = entries.filter((e) => !e.mode.startsWith('d'));
    assert.deepEqual(files.map((e) => e.path).sort(), [...expectedFiles].sort());
    for (const e of entries) {
      assert.equal(e.owner, 'root/root', e.path);
      if (!e.mode.startsWith('d')) assert.ok(allowedDirs.some((dir) => e.path.startsWith(dir)), e.path);
    }
    const mode = (path) => files.find((e) => e.path === path).mode;
    assert.equal(mode('./usr/bin/cilia'), '-rwxr-xr-x');
    assert.equal(mode('./lib/systemd/system/cilia.service'), '-rw-r--r--');
    assert.equal(mode('./etc/cilia/cilia.toml'), '-rw-r--r--');
  });

  const root = join(work, 'root');
  run('dpkg-deb', ['-x', deb, root]);
  const control = join(work, 'control');
  run('dpkg-deb', ['-e', deb, control]);

  await t.test('conffiles and maintainer scripts', () => {
    assert.deepEqual(readFileSync(join(control, 'conffiles'), 'utf8').trim().split('\n'), ['/etc/cilia/cilia.toml']);
    for (const name of ['postinst', 'prerm', 'postrm']) {
      const file = join(control, name);
      assert.equal(statSync(file).mode & 0o777, 0o755, `${name} mode`);
      const syntax = spawnSync('sh', ['-n', file], { encoding: 'utf8' });
      assert.equal(syntax.status, 0, `${name}: ${syntax.stderr}`);
      assert.deepEqual(unguardedSystemdCalls(readFileSync(file, 'utf8')), [], `${name} calls systemd unguarded`);
    }
    const postinst = readFileSync(join(control, 'postinst'), 'utf8');
    assert.match(postinst, /adduser --system --group --home \/var\/lib\/cilia/);
    assert.match(postinst, /chmod 0700 \/var\/lib\/cilia/);
    // Data and user go on purge only, never on a plain remove or an upgrade.
    const postrm = readFileSync(join(control, 'postrm'), 'utf8');
    const purgeAt = postrm.indexOf('if [ "$1" = purge ]');
    assert.ok(purgeAt > 0, 'postrm has a purge branch');
    assert.ok(postrm.indexOf('rm -rf /var/lib/cilia') > purgeAt, 'the data is deleted in the purge branch, and only there');
    assert.ok(postrm.indexOf('deluser --system') > purgeAt, 'the user is deleted in the purge branch, and only there');
  });

  await t.test('the unit file: runs the packaged binary as cilia on /var/lib/cilia, hardened', (t2) => {
    const unitFile = join(root, 'lib/systemd/system/cilia.service');
    const unit = parseUnit(readFileSync(unitFile, 'utf8'));
    const service = unit.Service;
    const exec = service.ExecStart.split(/\s+/);
    assert.deepEqual(exec.slice(0, 2), ['/usr/bin/cilia', 'serve']);
    assert.equal(exec[exec.indexOf('--data') + 1], '/var/lib/cilia');
    assert.equal(exec[exec.indexOf('--config') + 1], '/etc/cilia/cilia.toml');
    for (const path of [exec[0], exec[exec.indexOf('--config') + 1]]) assert.ok(existsSync(join(root, path)), path);
    for (const [key, value] of Object.entries(hardening)) assert.equal(service[key], value, `Service.${key}`);
    assert.equal(service.ReadWritePaths, undefined, 'StateDirectory is the one writable path');
    assert.equal(unit.Install.WantedBy, 'multi-user.target');

    if (!onPath('systemd-analyze')) {
      t2.diagnostic('systemd-analyze is not installed (Debian: the systemd package): verify and security skipped');
      return;
    }
    // The unit with ExecStart's binary in the scratch root (verify checks that it exists). Unknown keys and bad values are only warnings (exit 0)
    // naming the file, so any line naming it fails the test.
    const rooted = join(work, 'cilia.service');
    writeFileSync(rooted, readFileSync(unitFile, 'utf8').replace('ExecStart=/usr/bin/cilia', `ExecStart=${root}/usr/bin/cilia`));
    const verify = spawnSync('systemd-analyze', ['verify', '--man=no', rooted], { encoding: 'utf8' });
    const problems = (verify.stdout + verify.stderr).split('\n').filter((line) => line.includes('cilia.service'));
    assert.deepEqual(problems, [], verify.stdout + verify.stderr);
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const security = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', rooted], { encoding: 'utf8' });
    const score = (security.stdout + security.stderr).match(/Overall exposure level for cilia\.service: ([\d.]+)/);
    assert.ok(score, security.stdout + security.stderr);
    // 0 is fully locked down, 10 is no sandbox at all; under 2 is what systemd calls "OK".
    assert.ok(Number(score[1]) < 2, `exposure ${score[1]}:\n${security.stdout}`);
  });

  await t.test('the unpacked binary serves with the shipped config, and a first start writes admin.key', async () => {
    const bin = join(root, 'usr/bin/cilia');
    assert.equal(run(bin, ['version']).trim(), `cilia ${version}`);
    const data = join(work, 'data');
    const port = await freePort();
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CILIA_')));
    const proc = spawn(
      bin,
      ['serve', '--config', join(root, 'etc/cilia/cilia.toml'), '--data', data, '--listen', `127.0.0.1:${port}`],
      { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let output = '';
    proc.stderr.on('data', (chunk) => (output += chunk));
    try {
      const url = `http://127.0.0.1:${port}`;
      let health = null;
      for (let i = 0; i < 150 && proc.exitCode === null; i++) {
        health = await request(url, '/health', { timeoutMs: 2000 }).catch(() => null);
        if (health?.status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(health?.status, 200, `no /health from the unpacked binary:\n${output}`);
      assert.equal(health.json.version, version);
      // Not a terminal, as under systemd: the key is not printed, only where it is.
      assert.match(output, new RegExp(`it is in ${data}/admin\\.key`));
      const keyFile = join(data, 'admin.key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const key = readFileSync(keyFile, 'utf8').trim();
      const keys = await request(url, '/v1/keys', { key });
      assert.equal(keys.status, 200, keys.text);
    } finally {
      proc.kill('SIGTERM');
      assert.ok(await waitForExit(proc, 15_000), 'cilia serve did not stop on SIGTERM');
    }
    assert.equal(proc.exitCode, 0, output);
  });
});

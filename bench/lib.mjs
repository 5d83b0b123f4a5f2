// Shared helpers for the benchmarks: timing whole commands (interleaved, medians), peak RSS via
// GNU time, a sandbox in its own process, and the RESULTS.md writer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

// Every svc a benchmark starts keeps its code caches and journals in this run's own directory unless
// the benchmark names others: a sandbox or `svc roles` started without them wrote the user's
// ~/.cache/svc (session 28). Removed when the benchmark ends.
const OWN = mkdtempSync(join(tmpdir(), 'svc-bench-own-'));
process.env.SVC_CACHE_DIR ??= join(OWN, 'cache');
process.env.SVC_STATE_DIR ??= join(OWN, 'state');
process.on('exit', () => rmSync(OWN, { recursive: true, force: true }));
export const SVC = [process.execPath, join(ROOT, 'bin', 'svc.js')];

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Wall time of one run in ms; throws when the command fails. */
export function timeOnce([command, ...args], env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed: ${result.stderr}`);
  return ms;
}

/**
 * Runs every command `runs` times, interleaved (a, b, c, a, b, c, …) so machine noise hits all
 * alike, after `warmup` untimed rounds. Returns the median per command name. A command is an
 * argv array, or `{ argv, env }` to add environment variables for that command only.
 */
export function interleaved(commands, { runs = 25, warmup = 3, env = process.env } = {}) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (const [name, command] of Object.entries(commands)) {
      const ms = Array.isArray(command)
        ? timeOnce(command, env)
        : timeOnce(command.argv, { ...env, ...command.env });
      if (round >= warmup) times[name].push(ms);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([k, v]) => [k, { median: median(v), runs: v.length }]),
  );
}

/**
 * Peak resident set size (MB) and wall time (s) of one run, measured by GNU time. `code` is the
 * exit code the run must end with (a validation benchmark expects 2).
 */
export function peakRss(argv, env, { code = 0 } = {}) {
  const result = spawnSync('/usr/bin/time', ['-f', '%M %e', ...argv], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== code) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  const [kb, seconds] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { mb: kb / 1024, seconds };
}

/** `svc sandbox start` in its own process on a free port; resolves with its URL and admin token. */
export async function startSandboxProcess(args = []) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const child = spawn(
    SVC[0],
    [SVC[1], 'sandbox', 'start', '--port', '0', '--json', '--no-save-profile', ...args],
    {
      env: { ...process.env, SVC_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let buffer = '';
  const info = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      try {
        resolve(JSON.parse(buffer));
      } catch {
        // wait for the whole document
      }
    });
  });
  return {
    ...info,
    stop: async () => {
      child.removeAllListeners('exit');
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** Environment for svc against a benchmark sandbox: its URL, admin token and tenant, a fresh config dir. */
export function sandboxEnv(sandbox, extra = {}) {
  return {
    ...process.env,
    SVC_BASE_URL: sandbox.url,
    SVC_TOKEN: sandbox.admin_token,
    SVC_TENANT: sandbox.tenant,
    SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-config-')),
    ...extra,
  };
}

import { join } from 'node:path';
import { beforeAll, inject } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { type ProcessResult, runProcess } from '../../src/system/run.js';
import { runInProcess } from './context.js';
import { BIN, ROOT } from './paths.js';
import { useTempDir } from './temp.js';

const ACME_TREASURY = tenantId('acme-treasury');

export { BIN, ROOT };

export type SvcResult = ProcessResult;

export interface SvcOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  /** Run through `sh -c` with this umask. */
  umask?: string;
  timeoutMs?: number;
}

/** A fresh, private SVC_CONFIG_DIR removed after the file's tests. */
export function tempConfigDir(): string {
  // Made before the file's tests, not when it is collected (./temp.ts says why).
  return join(useTempDir('svc-test-'), 'config');
}

/** The code-cache directory of every svc process the tests start (made by test/global-setup.ts). */
export const TEST_CACHE_DIR = inject('svcCacheDir');

/**
 * The environment svc runs with in tests: nothing inherited that could change its behaviour,
 * and code caches in the suite's own temporary directory, never in ~/.cache/svc.
 */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    SVC_CACHE_DIR: TEST_CACHE_DIR,
  };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** Spawns the built svc binary and collects its output. */
export function svc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const [command, argv] = options.umask
    ? ['sh', ['-c', `umask ${options.umask}; exec "$0" "$@"`, process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  return run(command as string, argv as string[], options);
}

/**
 * Runs a bash script in which `svc` is the built binary (e.g. a pipeline). Asynchronous, so an
 * in-process sandbox keeps answering while it runs.
 */
export function bash(script: string, options: SvcOptions = {}): Promise<SvcResult> {
  const prelude = `svc() { "${process.execPath}" "${BIN}" "$@"; }\nset -o pipefail\n`;
  return run('bash', ['-c', prelude + script], options);
}

function run(command: string, argv: string[], options: SvcOptions): Promise<SvcResult> {
  return runProcess(command, argv, {
    env: baseEnv(options.env),
    cwd: ROOT,
    timeoutMs: options.timeoutMs ?? 30_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/**
 * The environment for running svc against a test sandbox as its admin in Acme Treasury, with
 * private config and state directories. Filled in before the file's tests run (the sandbox starts first).
 */
export function sandboxEnv(
  sandbox: () => { url: string; adminToken: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  const configDir = tempConfigDir();
  beforeAll(() => {
    Object.assign(env, {
      SVC_CONFIG_DIR: configDir,
      // Bulk journals of the file's runs, away from the user's state directory.
      SVC_STATE_DIR: join(configDir, '..', 'state'),
      SVC_BASE_URL: sandbox().url,
      SVC_TOKEN: sandbox().adminToken,
      SVC_TENANT: ACME_TREASURY,
      ...extra,
    });
  });
  return env;
}

const ACME = ['--tenant', tenantId('acme-treasury')];

/**
 * A spawned run's environment for an in-process run of the same setup: an in-process run finds
 * the home through the worker's own HOME, so a state directory left unset goes beside the config.
 */
export function inProcessEnv(env: SvcOptions['env'] = {}): Record<string, string | undefined> {
  const config = env.SVC_CONFIG_DIR;
  if (!config)
    throw new Error('an in-process run needs SVC_CONFIG_DIR (else it would use the home of this worker)');
  return { ...env, SVC_STATE_DIR: env.SVC_STATE_DIR ?? join(config, '..', 'state') };
}

/**
 * A custom role in acme-treasury, for a test that deletes it with the built svc. Made in-process
 * (a setup step, not what the test is about): no svc process started for it.
 */
export async function createCustomRole(env: SvcOptions['env'], name: string): Promise<void> {
  const made = await runInProcess(
    [...ACME, 'roles', 'create', '--name', name, '--permission', 'account.read'],
    inProcessEnv(env),
    { now: Date.now() },
  );
  if (made.code !== 0) throw new Error(`roles create ${name}: exit ${made.code}: ${made.stderr}`);
}

/**
 * Whether a custom role of acme-treasury is there and not deleted (a deleted one stays readable by
 * name). Asked in-process, as createCustomRole makes it.
 */
export async function customRoleExists(env: SvcOptions['env'], name: string): Promise<boolean> {
  const listed = await runInProcess([...ACME, 'roles', 'ls', '--custom', '--json'], inProcessEnv(env), {
    now: Date.now(),
  });
  return (JSON.parse(listed.stdout) as Array<{ name: string }>).some((role) => role.name === name);
}

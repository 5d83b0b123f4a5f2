import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'svc.js');

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  /** Run through `sh -c` with this umask. */
  umask?: string;
  timeoutMs?: number;
}

/** A fresh, private SVC_CONFIG_DIR removed after the file's tests. */
export function tempConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'config');
}

/** The environment svc runs with in tests: nothing inherited that could change its behaviour. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
  };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** Spawns the built svc binary and collects its output. */
export function svc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const [command, argv] = options.umask
    ? ['sh', ['-c', `umask ${options.umask}; exec "$0" "$@"`, process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  return run(command as string, argv as string[], options, `svc ${args.join(' ')}`);
}

/**
 * Runs a bash script in which `svc` is the built binary (e.g. a pipeline). Asynchronous, so an
 * in-process sandbox keeps answering while it runs.
 */
export function bash(script: string, options: SvcOptions = {}): Promise<SvcResult> {
  const prelude = `svc() { "${process.execPath}" "${BIN}" "$@"; }\nset -o pipefail\n`;
  return run('bash', ['-c', prelude + script], options, script);
}

function run(command: string, argv: string[], options: SvcOptions, label: string): Promise<SvcResult> {
  const env = baseEnv(options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

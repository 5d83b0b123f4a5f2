import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './paths.js';

/** The user another user's runs are made as, run as root: a uid no account has. */
export const USER = 4242;

const root = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Whether this node can be run as USER: root only, and not when node sits in a private directory
 * (under /root, a mktemp -d).
 */
export const userCanRun =
  root &&
  spawnSync(process.execPath, ['-e', '0'], { uid: USER, gid: USER, cwd: '/', stdio: 'ignore' }).status === 0;

/** The built svc run as USER in `home` (its $HOME and cwd), with `env` besides: its exit code and output. */
export function asUser(
  home: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    uid: USER,
    gid: USER,
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      SVC_NO_CODE_CACHE: '1',
      NO_COLOR: '1',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A directory of `mode` (and owner, as root) made under `parent`: its path. */
export function ownedDir(parent: string, name: string, mode: number, owner?: number): string {
  const path = join(parent, name);
  mkdirSync(path);
  chmodSync(path, mode);
  if (owner !== undefined) chownSync(path, owner, owner);
  return path;
}

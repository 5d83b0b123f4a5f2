import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../output/io.js';

/** SVC_CONFIG_DIR, else the platform's config directory (XDG on Linux). */
export function configDir(env: Env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  if (process.platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'svc', 'Config');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'svc');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc');
}

/**
 * Creates the directory 0700, and tightens it when it exists with group or other bits — unless
 * it is a shared sticky directory such as /tmp, or belongs to someone else.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const stat = statSync(dir);
  const sticky = (stat.mode & 0o1000) !== 0;
  const mine = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  if ((stat.mode & 0o077) !== 0 && !sticky && mine) chmodSync(dir, 0o700);
}

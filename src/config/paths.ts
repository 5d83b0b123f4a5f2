import { lstatSync, readlinkSync, type Stats, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { quoted } from '../output/format.js';
import type { Env } from '../output/io.js';

/**
 * SVC_CONFIG_DIR, else the platform's config directory (XDG on Linux). A relative SVC_CONFIG_DIR
 * is taken from the current directory, as any path the user types.
 */
export function configDir(env: Env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  if (process.platform === 'win32')
    return join(env.APPDATA ?? join(homeDirectory(), 'AppData', 'Roaming'), 'svc', 'Config');
  if (process.platform === 'darwin') return join(homeDirectory(), 'Library', 'Preferences', 'svc');
  return join(xdgHome(env, 'XDG_CONFIG_HOME', '.config'), 'svc');
}

/** SVC_STATE_DIR, else $XDG_STATE_HOME/svc (~/.local/state/svc): where bulk runs keep journals. */
export function stateDir(env: Env): string {
  return env.SVC_STATE_DIR || join(xdgHome(env, 'XDG_STATE_HOME', join('.local', 'state')), 'svc');
}

/**
 * An XDG base directory: the variable when it is an absolute path, else `~/<fallback>`. The XDG
 * Base Directory spec says a relative value is invalid and must be ignored: taken from the current
 * directory, credentials would land in whatever folder the user is in (bin/svc.js does the same
 * for XDG_CACHE_HOME).
 */
function xdgHome(env: Env, name: 'XDG_CONFIG_HOME' | 'XDG_STATE_HOME', fallback: string): string {
  const value = env[name];
  return value && isAbsolute(value) ? value : join(homeDirectory(), fallback);
}

/**
 * The user's home directory: HOME when it is an absolute path, else (unset, or empty or relative
 * as cron, systemd units and `env -i` leave it) the one of the system's user list, as Node does
 * for an unset HOME: a relative one would put credentials in whatever folder svc runs from.
 * bin/svc.js does the same for the code cache. No home at all is refused (exit 2).
 */
export function homeDirectory(): string {
  // process.env first: os.homedir() reads the process's own environment, which a worker thread's
  // process.env (a copy) does not change; svc runs in the main thread, where the two agree.
  const home = process.env.HOME ?? homedir();
  if (isAbsolute(home)) return home;
  let entry = '';
  try {
    entry = userInfo().homedir;
  } catch {
    // no entry in the user list
  }
  if (isAbsolute(entry)) return entry;
  throw new ConfigError(
    `HOME is ${home === '' ? 'empty' : `a relative path, ${quoted(home)},`} and the user list gives no home directory, so svc has nowhere to keep its files`,
    { hint: 'set HOME to an absolute path, or SVC_CONFIG_DIR and SVC_STATE_DIR' },
  );
}

/** The variables that name a directory svc makes and keeps private (0700). */
const DIRECTORY_VARIABLES = ['SVC_CONFIG_DIR', 'SVC_STATE_DIR', 'SVC_CACHE_DIR'] as const;

/**
 * A directory variable that starts with an unexpanded `~`, names a file (or a path under one),
 * or a symbolic link to nothing, is a mistake: refused (exit 2) before svc reads anything there or changes the file's mode, as it would tighten a directory's.
 * A path that does not exist yet is fine: svc makes it when it writes there.
 */
export function checkDirectoryVariables(env: Env): void {
  for (const name of DIRECTORY_VARIABLES) {
    const value = env[name];
    if (!value) continue;
    const unexpanded = unexpandedDirectory(name, value);
    if (unexpanded !== undefined) throw unexpanded;
    const problem = notADirectory(value);
    if (problem === undefined) continue;
    throw new ConfigError(`${name} ${value} ${problem}`, {
      hint: `point ${name} at a directory (or unset it); svc changed nothing`,
    });
  }
}

/**
 * A directory variable's value that starts with what only a shell expands: `~` or a variable
 * (`$HOME/…`, `${HOME}/…`). A YAML `env:` block, a compose env_file, a systemd `Environment=` and
 * most .env loaders leave both as they are; taken literally they make a folder named `~` or
 * `$HOME` wherever svc runs (F3, review16c R7). A value that starts with a quote (kept by
 * `docker run --env-file` and several .env loaders) is refused alike (review17 F4): taken literally
 * it made `./"$HOME/.config/svc"/`. bin/svc.js applies the same rule to SVC_CACHE_DIR
 * (dist/launcher.json, from launcherFacts), so the launcher makes no such folder either (R8).
 */
export const UNEXPANDED_DIRECTORY = /^["'~$]/;

function unexpandedDirectory(name: string, value: string): ConfigError | undefined {
  if (!UNEXPANDED_DIRECTORY.test(value)) return undefined;
  // A quoted value (`docker run --env-file`, several .env loaders keep the quotes: review17 F4):
  // what is inside the quotes is what was meant.
  const quote = /^["']/.exec(value)?.[0];
  const inner = quote ? value.slice(1, value.endsWith(quote) && value.length > 1 ? -1 : undefined) : value;
  const unexpanded = /^[~$]/.test(inner)
    ? inner.startsWith('~')
      ? 'a ~'
      : `a variable (${/^\$\{?\w*\}?/.exec(inner)?.[0]})`
    : undefined;
  const what = quote
    ? `a quote${unexpanded ? ` and ${unexpanded} that no shell took off or expanded` : ' that no shell took off'}`
    : `${unexpanded} that no shell expanded`;
  const slash = inner.indexOf('/');
  const first = slash === -1 ? inner : inner.slice(0, slash);
  // The example is a path the user can see, in the user's home when that is what was meant: a
  // `$HOME/…` example would be left as it is by the same YAML block or .env file.
  const own = ['~', '$HOME', '$' + '{HOME}'].includes(first);
  const example = own
    ? ` (e.g. ${name}=${join(homeDirectory(), slash === -1 ? '' : inner.slice(slash + 1))})`
    : isAbsolute(inner)
      ? ` (e.g. ${name}=${inner})`
      : '';
  return new ConfigError(`${name} ${value} starts with ${what}`, {
    hint: `use an absolute path${example}; svc changed nothing`,
  });
}

/** Why `path` cannot be a directory ("is a file, not a directory"), or undefined when it can. */
function notADirectory(path: string): string | undefined {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return danglingLink(path);
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    // A part of it is no directory: the nearest one that exists is the file in the way.
    for (let part = dirname(resolve(path)); part !== dirname(part); part = dirname(part)) {
      try {
        if (!statSync(part).isDirectory()) return `is under a file (${part}), not a directory`;
      } catch {
        // a part further up is in the way
      }
    }
    return 'is not a directory';
  }
  if (stat.isDirectory()) return undefined;
  return stat.isFile() ? 'is a file, not a directory' : 'is not a directory';
}

/**
 * A path that does not exist because it is, or is under, a symbolic link to nothing: svc could
 * not make it (mkdir fails with EEXIST), so it is said as it is. Undefined: svc can make it.
 */
function danglingLink(path: string): string | undefined {
  const full = resolve(path);
  for (let part = full; part !== dirname(part); part = dirname(part)) {
    let link: Stats;
    try {
      link = lstatSync(part);
    } catch {
      continue; // does not exist: look further up
    }
    if (!link.isSymbolicLink() || pointsSomewhere(part)) return undefined;
    const target = readlinkSync(part);
    const where = part === full ? 'is a symbolic link' : `is under a symbolic link (${part})`;
    return `${where} to ${target}, which does not exist`;
  }
  return undefined;
}

function pointsSomewhere(link: string): boolean {
  try {
    statSync(link);
    return true;
  } catch {
    return false;
  }
}

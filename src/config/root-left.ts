import { realpathSync, statSync } from 'node:fs';
import { dirname, extname, relative, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { uid } from '../system/processes.js';
import { shellWord } from '../system/shell-words.js';
import { homeDirectory } from './paths.js';

/** $HOME resolved through links, or undefined when there is none. */
export function realHome(): string | undefined {
  try {
    return realOrSelf(homeDirectory());
  } catch {
    return undefined; // no home: up to /
  }
}

export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Who owns $HOME (its real path), or undefined. */
export function homeOwner(): number | undefined {
  const home = realHome();
  try {
    return home === undefined ? undefined : statSync(home).uid;
  } catch {
    return undefined;
  }
}

/**
 * A file of svc's the user's run cannot read or write (EACCES) because it, or a directory above it
 * below $HOME, is root's: an older `sudo -E svc login` or `sudo -E svc apply` left it so (before
 * root gave what it writes in the user's home to its owner: store-directory.ts, heirOf), making
 * each missing directory of the path 0700 root's (`~/.config` too, in a fresh home: review19c F7).
 * One line naming the highest such directory (or the file), its owner and the chowns that give back
 * only what svc made: `-R` of the directory svc keeps the file in, each directory above it one by
 * one (a `chown -R ~/.config` would take other programs' files too). Undefined for any other
 * failure, when svc runs as root, outside $HOME, and when $HOME is not the user's own (root's home
 * entered as another user: it was never theirs to take, review19c F3).
 */
export function rootLeft(path: string, error: unknown, doing: 'read' | 'write'): ConfigError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const me = uid();
  if ((code !== 'EACCES' && code !== 'EPERM') || me === undefined || me === 0) return undefined;
  const home = realHome();
  if (home === undefined || homeOwner() !== me) return undefined;
  // Below the user's home only, where an older svc run as root wrote: a directory of root's
  // elsewhere (SVC_CONFIG_DIR or --journal naming /root, /etc) is not the user's to chown.
  const real = realOrSelf(path);
  if (!real.startsWith(`${home}/`)) return undefined;
  // A name with an extension is a file (config.json, a journal, a lock); svc's directories have none.
  const kept = extname(real) === '' ? real : dirname(real);
  const parts = relative(home, real).split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const at = `${home}/${parts.slice(0, i).join('/')}`;
    let owner: number;
    try {
      owner = statSync(at).uid;
    } catch {
      return undefined; // not under a directory of another's: some other failure, said as it is
    }
    // Another's that lets the user through (a root-owned 0755 ~/.config) is not what stops them.
    if (owner === me || (i < parts.length - 1 && enters(`${at}/${parts[i]}`))) continue;
    const whose = owner === 0 ? 'root (uid 0)' : `another user (uid ${owner})`;
    const what = at === real ? real : `${real} is in ${at}, which`;
    // Only what exists is named (a chown of a missing path fails, and a user may stop there), the
    // directories above first, from the top, then the store below them whole.
    const above: string[] = [];
    for (let d = dirname(kept); d.length >= at.length && d !== home; d = dirname(d)) {
      if (!missing(d)) above.unshift(d);
    }
    const commands = [
      ...(above.length > 0 ? [`\`sudo chown $USER ${above.map(shellWord).join(' ')}\``] : []),
      ...(missing(kept) ? [] : [`\`sudo chown -R $USER ${shellWord(kept)}\``]),
    ];
    const chown =
      at === real && kept !== real ? `\`sudo chown $USER ${shellWord(real)}\`` : commands.join(' and ');
    return new ConfigError(
      `${what} belongs to ${whose}, so svc cannot ${doing} it as you (uid ${me}); an older \`sudo -E svc\` run may have left it so`,
      {
        code: 'config_owner',
        hint: `give it back to you with ${chown}, then run the command again; svc changed nothing`,
      },
    );
  }
  return undefined;
}

/** Known not to exist (ENOENT); a path the user cannot look into (EACCES) may exist, and is named. */
function missing(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function enters(next: string): boolean {
  try {
    statSync(next);
    return true;
  } catch {
    return false;
  }
}

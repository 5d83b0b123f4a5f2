import { chmodSync, lstatSync, realpathSync, type Stats, statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { shellWord } from '../system/shell-words.js';

/**
 * Who may touch the credential store, checked as ssh's StrictModes checks ~/.ssh: the directory
 * and both files must be the user's own, and the directory writable by nobody else. Another
 * user's directory, a shared one (sticky /tmp, a setgid team directory) or one others can write
 * is refused (exit 2) and never chmod-ed: another user could have planted `credentials.json` as a
 * link to a file of theirs, and making the directory 0700 would take /tmp from everyone. A file
 * (or the target of a link) another user owns is refused too: svc would write the credential
 * into it, or trust its base_url. A directory or credentials.json of the user's own that others
 * can only read is made private, with one warning, as before.
 */

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);
const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;

function statOrUndefined(stat: (path: string) => Stats, path: string): Stats | undefined {
  try {
    return stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Why svc must not keep credentials in a directory of this stat, or undefined. */
function directoryProblem(stat: Stats, me: number): string | undefined {
  if (stat.uid !== me) return `belongs to another user (uid ${stat.uid})`;
  // Sticky or setgid with no one else let in (inherited from a parent) is private all the same.
  const shared = (stat.mode & 0o077) !== 0;
  if (shared && stat.mode & 0o1000) return `is a shared directory (mode ${octal(stat.mode)}, sticky)`;
  if (shared && stat.mode & 0o2000) return `is a shared directory (mode ${octal(stat.mode)}, setgid)`;
  if (stat.mode & 0o022) return `is writable by others (mode ${octal(stat.mode)})`;
  return undefined;
}

/**
 * Why `path` (config.json or credentials.json) must not be read or replaced: it is, or links to,
 * something another user owns, or a link to nothing (a write would make the file wherever it
 * points). Something else that is no file (a directory) is named by the read that fails. Undefined when it is fine or absent.
 * A link to the user's own file (a dotfile manager's) is fine.
 */
export function ownFileProblem(path: string): string | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  const link = statOrUndefined(lstatSync, path);
  if (link === undefined) return undefined;
  const target = link.isSymbolicLink() ? statOrUndefined(statSync, path) : link;
  const what = link.isSymbolicLink() ? `is a symbolic link to ${realTarget(path)}, which` : 'is a file that';
  if (target === undefined) return `is a symbolic link to something that does not exist`;
  if (target.uid !== me) return `${what} belongs to another user (uid ${target.uid})`;
  return undefined;
}

function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return 'something';
  }
}

export function ownFileRefusal(path: string, problem: string): ConfigError {
  return new ConfigError(`${path} ${problem}, so svc will not read or write credentials through it`, {
    code: 'config_owner',
    hint: `remove it (\`rm ${shellWord(path)}\`) if you did not put it there, then log in again; svc changed nothing`,
  });
}

/**
 * Checks the store's directory and files before anything is read or written there; tightens a
 * directory or credentials.json of the user's own that others can read (saying so through `warn`).
 */
export function checkStore(
  dir: string,
  files: { config: string; credentials: string },
  warn: ((message: string) => void) | undefined,
): void {
  const me = uid();
  if (me === undefined) return;
  const stat = statOrUndefined(statSync, dir);
  if (stat === undefined || !stat.isDirectory()) return; // svc makes it 0700; a file is refused elsewhere
  const problem = directoryProblem(stat, me);
  if (problem !== undefined) {
    throw new ConfigError(`the config directory ${dir} ${problem}, so svc will not keep credentials in it`, {
      code: 'config_owner',
      hint:
        stat.uid === me && !(stat.mode & 0o3000)
          ? `check what is in it, then \`chmod 700 ${shellWord(dir)}\`, or point SVC_CONFIG_DIR at a private directory of your own; svc changed nothing`
          : `point SVC_CONFIG_DIR at a private directory of your own (\`mkdir -m 700 DIR\`); svc changed nothing`,
    });
  }
  for (const path of [files.config, files.credentials]) {
    const fileProblem = ownFileProblem(path);
    if (fileProblem !== undefined) throw ownFileRefusal(path, fileProblem);
  }
  tighten(dir, stat.mode, 0o700, warn);
  const credentials = statOrUndefined(statSync, files.credentials);
  if (credentials !== undefined) tighten(files.credentials, credentials.mode, 0o600, warn);
}

function tighten(
  path: string,
  mode: number,
  to: number,
  warn: ((message: string) => void) | undefined,
): void {
  const current = mode & 0o777;
  if ((current & 0o077) === 0) return;
  const was = `${path} was ${current & 0o044 ? 'readable by' : 'open to'} others (0${current.toString(8)})`;
  try {
    chmodSync(path, to);
    warn?.(`${was}; svc made it 0${to.toString(8)}, since it holds credentials`);
  } catch (error) {
    warn?.(
      `${was} and svc could not tighten it (${(error as Error).message}); run \`chmod ${to.toString(8)} ${shellWord(path)}\``,
    );
  }
}

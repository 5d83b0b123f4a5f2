import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';

/**
 * A file a command writes for the user (`svc export -o`, `svc plan --out`): whole or not at all —
 * a temporary file beside it, renamed over it — so an interrupted write never leaves half a
 * document behind. `flag` names the option in the error. A file svc knows holds a secret (a
 * webhook URL's `?token=`) is `secret`: created 0600, whatever the umask, as secret files are.
 * A path that is no regular file (`/dev/null`, `/dev/stdout`, a named pipe) is written into as it
 * is: renamed over, it would be replaced by a regular file (as root, /dev/null itself).
 */
export function writeFileWhole(path: string, text: string, flag: string, secret = false): void {
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing && !existing.isFile() && !existing.isDirectory()) {
    try {
      writeFileSync(path, text);
      return;
    } catch (error) {
      throw new UsageError(`cannot write ${flag} ${path}: ${fileErrorReason(error, 'it cannot be opened')}`);
    }
  }
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { flag: 'wx', ...(secret ? { mode: 0o600 } : {}) });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new UsageError(
      `cannot write ${flag} ${path}: ${fileErrorReason(error, 'its directory does not exist')}`,
    );
  }
}

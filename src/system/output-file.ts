import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';

/**
 * A file a command writes for the user (`svc export -o`, `svc plan --out`): whole or not at all —
 * a temporary file beside it, renamed over it — so an interrupted write never leaves half a
 * document behind. `flag` names the option in the error. A file svc knows holds a secret (a
 * webhook URL's `?token=`) is `secret`: created 0600, whatever the umask, as secret files are.
 */
export function writeFileWhole(path: string, text: string, flag: string, secret = false): void {
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

// Where `webhooks listen --webhook W` keeps W's URL when it holds a secret, for the put-back
// command it prints (attack25b M3).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { redactUrlText } from '../../api/secret-names.js';
import { stateDir } from '../../config/paths.js';
import { heirOf } from '../../config/store-directory.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { makeDirectories } from '../../system/directories.js';
import { fileErrorReason } from '../../system/input.js';
import { writeOwnFile } from '../../system/output-file.js';
import { pathWord } from '../../system/shell-words.js';

/** W's URL in a file of the user's alone; `remove` once W is back (or was never changed). */
export interface KeptUrl {
  path: string;
  remove(): void;
}

/**
 * The command that puts W back must carry W's URL exactly, but a URL holding a secret
 * (`?access_key=…`, what redactUrlText masks) must not be printed to a terminal, a CI log or a
 * shell history: it is written to `<state dir>/listen/W-<random>.url` (directory 0700, file 0600,
 * the URL alone, no newline), which the printed command reads with `-F url=@FILE`. A URL with no
 * secret is printed as it is and nothing is kept. The platform cannot be asked for it at put-back
 * time: while the session runs it holds the listener's URL, and the original is nowhere else.
 * Written before W is changed; a file that cannot be written refuses the session (nothing changed).
 * The path is absolute (review25d L1): the printed line is pasted after svc was killed, perhaps in
 * another directory, and SVC_STATE_DIR may be relative. Its removal is best effort (review25d L5):
 * it comes between the URL's put-back and the rotation's undoing, which a throw would skip; a file
 * that stays is one warning naming it and the `rm` that removes it.
 */
export function keepUrl(ctx: Context, webhook: string, url: string): KeptUrl | undefined {
  if (redactUrlText(url) === url) return undefined;
  const dir = resolve(stateDir(ctx.env), 'listen');
  const path = join(dir, `${webhook.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomBytes(4).toString('hex')}.url`);
  try {
    makeDirectories(dir, 0o700, heirOf);
    writeOwnFile(path, url, 0o600, heirOf(dir));
  } catch (error) {
    throw new UsageError(
      `cannot keep webhook ${webhook}'s URL (it holds a secret, which svc does not print) in ${path}: ${fileErrorReason(error)}; nothing was changed`,
      { hint: 'set SVC_STATE_DIR to a directory you can write' },
    );
  }
  const remove = () => {
    try {
      rmSync(path, { force: true });
    } catch (error) {
      ctx.out.warn(
        `could not remove ${path}, which holds webhook ${webhook}'s URL (${fileErrorReason(error)}); it is no longer needed: rm ${pathWord(path)}`,
      );
    }
  };
  return { path, remove };
}

import {
  accessSync,
  chmodSync,
  constants,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { MASK, redactUrlText } from '../api/secret-names.js';
import { UsageError } from '../errors.js';
import { makeDirectories } from '../system/directories.js';
import { idPart, safe } from '../system/file-names.js';
import { fileErrorReason } from '../system/input.js';
import { emptyFile, SecretFile, SecretNotSavedError, secretProblem } from '../system/secret-file.js';
import { pathWord } from '../system/shell-words.js';

export { safe } from '../system/file-names.js';
export { SecretNotSavedError } from '../system/secret-file.js';

/**
 * Where svc apply puts the one-time secrets of the webhooks and OAuth clients it creates: a
 * directory only its owner can enter (0700), one 0600 file per resource named so a person knows
 * which it is (`acme-treasury.webhook.hooks.example.com_svc.wh_8f3a….secret`: a webhook's URL
 * by its host and path only, urlWithoutSecrets, since the name is printed and listed), never over
 * another file. The name holds the id the platform gave, so it is known only from the answer;
 * the directory is checked before anything is sent, so a secret is never lost to a bad path.
 */
export class SecretDir {
  private constructor(
    readonly path: string,
    private readonly fill: Fill,
  ) {}

  /**
   * Makes the directory (0700) or checks the one there: not readable by others, writable by us.
   * `fill` writes a secret into an empty file a killed run left: a seam so that a test can play a
   * write that fails (a test runs as root, whom no mode stops); svc itself always uses fillEmpty.
   */
  static prepare(path: string, fill: Fill = fillEmpty): SecretDir {
    try {
      makeDirectories(path, 0o700);
      const mode = statSync(path).mode;
      if (!statSync(path).isDirectory()) throw new UsageError(`--secret-dir ${path} is not a directory`);
      if ((mode & 0o077) !== 0) {
        throw new UsageError(
          `--secret-dir ${path} can be entered by others (mode ${(mode & 0o777).toString(8)}); secrets need a private directory`,
          { hint: `chmod 700 ${path}, or choose a new directory (svc makes it 0700)` },
        );
      }
      accessSync(path, constants.W_OK);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(
        `cannot use --secret-dir ${path}: ${fileErrorReason(error, 'its parent does not exist')}`,
      );
    }
    return new SecretDir(path, fill);
  }

  /**
   * Writes one secret to its own new file and returns its path. The same answer written again
   * (a resumed run is answered from the platform's record of the same request) finds its file
   * already holding that secret, and is done; a file a killed run left empty is filled.
   */
  async write(
    tenantSlug: string,
    kind: 'webhook' | 'oauth-client',
    name: string,
    id: string,
    secret: unknown,
  ): Promise<string> {
    const readable = safe(kind === 'webhook' ? urlWithoutSecrets(name) : name);
    const parts = [safe(tenantSlug) || 'tenant', kind, ...(readable ? [readable] : []), idPart(id)];
    const path = join(this.path, `${parts.join('.')}.secret`);
    let file: SecretFile;
    try {
      file = await SecretFile.create(path, '--secret-dir file');
    } catch (error) {
      if (typeof secret !== 'string' || secretProblem(secret) !== undefined) throw error;
      if (sameSecret(path, secret)) return path;
      // A run killed between making the file and writing it left it empty: it holds no secret yet.
      if (emptyFile(path)) {
        try {
          this.fill(path, secret);
        } catch (failed) {
          // Not this run's file (fix-files19 #1): another run may be about to fill it, or the user
          // made it. It is left as it was, what part of this secret got in taken out.
          throw new SecretNotSavedError(path, fileErrorReason(failed), undefined, leftEmpty(path, secret));
        }
        return path;
      }
      throw new SecretNotSavedError(
        path,
        // SecretFile's words without the path said again: it could not make it, or prove room in it.
        (error as Error).message
          .replace(`cannot create --secret-dir file ${path}: `, '')
          .replace(`cannot write to --secret-dir file ${path}: `, ''),
      );
    }
    // A full disk throws SecretNotSavedError; an answer without a usable secret is the platform's
    // fault, said as such (SecretFile).
    await file.write(secret, kind === 'webhook' ? 'secret' : 'client_secret');
    return path;
  }
}

/** Writes `secret` into the empty file at `path`, made 0600 first; throws the system error. */
export type Fill = (path: string, secret: string) => void;

export const fillEmpty: Fill = (path, secret) => {
  chmodSync(path, 0o600);
  writeFileSync(path, secret, { flag: 'r+' });
};

/**
 * What became of an empty file this run did not make and could not fill: left as it was, said with
 * why and what fills it; or, when the part of `secret` the failed write put in it cannot be taken
 * out again, that it may hold it.
 */
function leftEmpty(path: string, secret: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    if (text !== '' && secret.startsWith(text)) truncateSync(path, 0);
  } catch (failed) {
    return `${path} could not be emptied again (${fileErrorReason(failed)}) and may hold part of the secret: empty it (\`: > ${pathWord(path)}\`), then run the same command again to fill it`;
  }
  return `${path} is left as it was (empty): this run did not make it (a run stopped before its secret arrived did, another run may be about to fill it, or you made it), so svc does not remove it; fix what failed, then run the same command again to fill it`;
}

function sameSecret(path: string, secret: string): boolean {
  try {
    // Exactly the key (SecretFile.write), or with the final newline an earlier svc wrote.
    const text = readFileSync(path, 'utf8');
    return text === secret || text === `${secret}\n`;
  } catch {
    return false;
  }
}

/**
 * What of a webhook's URL a secret file's name may carry: its scheme, host and path, never its
 * user name, password, query or fragment, and without a path segment that holds a credential
 * (a Slack or Mattermost key, a `whsec_…`: redactUrlText's rule). The name is printed in the
 * apply row beside the URL that row masks, and shown by every listing of the directory (attack17
 * A1); the id beside it says which webhook it is. Text that does not parse as a URL keeps what
 * comes before a `?` or `#`, masked.
 */
export function urlWithoutSecrets(url: string): string {
  if (!URL.canParse(url)) return dropMasked(redactUrlText(url.split(/[?#]/)[0] ?? ''));
  const { protocol, host, pathname } = new URL(url);
  const masked = redactUrlText(`${protocol}//${host}${pathname}`);
  const at = masked.indexOf('//') + 2;
  return `${masked.slice(0, at)}${dropMasked(masked.slice(at))}`;
}

/** A path without the segments that hold a masked secret. */
const dropMasked = (path: string): string =>
  path
    .split('/')
    .filter((segment) => !segment.includes(MASK))
    .join('/');

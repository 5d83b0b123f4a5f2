import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MASK, percentDecoded, redactUrlText } from '../api/secret-names.js';
import { UsageError } from '../errors.js';
import { makeDirectories } from '../system/directories.js';
import { fileErrorReason } from '../system/input.js';
import { emptyFile, SecretFile, SecretNotSavedError, secretProblem } from '../system/secret-file.js';

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
  private constructor(readonly path: string) {}

  /** Makes the directory (0700) or checks the one there: not readable by others, writable by us. */
  static prepare(path: string): SecretDir {
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
    return new SecretDir(path);
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
          chmodSync(path, 0o600);
          writeFileSync(path, secret, { flag: 'r+' });
        } catch (failed) {
          rmSync(path, { force: true });
          throw new SecretNotSavedError(path, fileErrorReason(failed));
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

/**
 * The id as a name part: itself when it is one safe segment (the platform's `wh_…`, `cli_…`), else
 * what safe() keeps of it and a digest of it whole, so two ids that read alike once made safe
 * (`wh/1`, `wh:1`, two long ids cut at the same place) name two files (s18 mask18 #3).
 */
function idPart(id: string): string {
  const readable = safe(id);
  if (id === '') return 'unnamed';
  if (readable === id) return id;
  return `${readable || 'id'}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
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

/** Letters NFKD does not take apart into a letter and its accent. */
const LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  þ: 'th',
  Þ: 'Th',
  ð: 'd',
  Ð: 'D',
};

/**
 * A name part that is one safe path segment a person can read, for a webhook (its URL) and an
 * OAuth client (its name) alike: `https://hooks.example.com/svc` → `hooks.example.com_svc`,
 * `https://hooks.example.com/%C3%BCn%C3%AF` → `hooks.example.com_uni`, `Ünï ☃` → `Uni` (a
 * URL's escapes decoded, accents and ligatures read as their letters, anything else is a
 * separator). Empty when nothing of it is readable (`☃`, `東京`): the id beside it in the file
 * name says which resource it is.
 */
export function safe(text: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text);
  const cleaned = (url ? percentDecoded(text.slice(url[0].length)) : text)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x00-\x7f]/g, (c) => LETTERS[c] ?? '_')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|_+$/g, '');
  return cleaned.slice(0, 60).replace(/_+$/, '');
}

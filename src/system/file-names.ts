import { createHash } from 'node:crypto';
import { percentDecoded } from '../api/secret-names.js';

/**
 * Parts of the names of files svc makes from what a server or a user named: `svc apply
 * --secret-dir`'s secret files (ascode/secrets.ts), `svc webhooks listen --capture`'s captures
 * (commands/webhooks/capture.ts). One rule, so a name is one safe path segment of bounded length
 * a person can read.
 */

/**
 * An id as a file name part: itself when it is one safe segment (the platform's `wh_…`, `cli_…`,
 * `dlv_…`), else what safe() keeps of it and a digest of it whole, so two ids that read alike once
 * made safe (`wh/1`, `wh:1`, two long ids cut at the same place) name two files (s18 mask18 #3).
 * Never more than 69 characters, never a `/`, never a leading `.`: an id a server sent is not
 * svc's to trust (attack19 F8: a delivery id of 300 characters, `../..`). Whoever needs the id
 * whole keeps it inside the file.
 */
export function idPart(id: string): string {
  const readable = safe(id);
  if (id === '') return 'unnamed';
  if (readable === id) return id;
  return `${readable || 'id'}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

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

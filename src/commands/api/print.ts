import { keepNumbersAsTheyCame } from '../../api/numbers-as-they-came.js';
import { notUtf8 } from '../../api/utf8.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError } from '../../errors.js';
import {
  type ApiClient,
  type Page,
  pageItems,
  type QueryValue,
  type RequestOptions,
} from '../../http/client.js';
import { twiceNote } from '../../http/paging.js';
import { shellWord } from '../../system/shell-words.js';

/** What `svc api` prints: the status line and headers (-i), the body as it came, every item of a list (--paginate). */

export async function printBody(
  ctx: Context,
  text: string,
  contentType: unknown,
  notUtf8?: Buffer,
  parsed?: { data: unknown },
): Promise<void> {
  if (notUtf8) return printBytes(ctx, text, notUtf8);
  if (text === '') return;
  const isJson = typeof contentType === 'string' ? contentType.includes('json') : /^[[{]/.test(text.trim());
  // Laid out, but every number and key as it came (JSON.parse would round 12345678901234567891).
  if (isJson && (wellFormedBy(text, parsed) ?? parses(text))) return ctx.out.jsonAsItCame(text);
  await ctx.out.raw(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Whether the HTTP client's reading of an answer (`expect: 'text'`, lenientJson) found `text` well
 * formed: it gives back the text itself when it is not JSON, nothing when it read no body (204).
 * A large answer is then not parsed a second time only to learn it (about 1 s and a second copy
 * of the whole tree for 50 MB, bench/big-answer.mjs).
 */
function wellFormedBy(text: string, parsed: { data: unknown } | undefined): boolean | undefined {
  if (parsed === undefined || parsed.data === undefined) return undefined;
  return parsed.data !== text;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false; // printed as given
  }
}

/**
 * A body that is not UTF-8 (binary, or Latin-1 text): its bytes as they came, nothing added, to a
 * file or a pipe (as curl and gh api write them); a terminal gets the text with U+FFFD in place
 * of those bytes, and a note that says so.
 */
async function printBytes(ctx: Context, text: string, bytes: Buffer): Promise<void> {
  if (!ctx.io.stdoutIsTTY) return ctx.out.write(bytes);
  const { offset, byte } = notUtf8(bytes)!;
  ctx.out.warn(
    `the body is not UTF-8 (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} at offset ${offset}): shown with U+FFFD for such bytes; redirect stdout to a file for the bytes as they came`,
  );
  await ctx.out.raw(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * --paginate: every item of every page of a list; an answer that is not a list (a single record,
 * /v1/me) is printed as it is without --paginate, as it came (printBody), as gh api does.
 */
export async function printPages(
  ctx: Context,
  api: ApiClient,
  path: string,
  query: Record<string, QueryValue>,
  options: Partial<RequestOptions>,
): Promise<void> {
  const first = await api.request<Page<unknown>>({ ...options, method: 'GET', path, query, expect: 'text' });
  if (!pageItems(first.data))
    return printBody(ctx, first.text, first.headers['content-type'], first.notUtf8, first);
  // A list's items are printed as values: only then are its numbers' texts needed.
  keepNumbersAsTheyCame(first.text, first.data);
  try {
    await ctx.out.jsonList(
      api.paginate(path, query, options, undefined, { first, twice: (n) => ctx.out.info(twiceNote(n)!) }),
    );
  } catch (error) {
    // An item nested too deep to lay out as a value (thousands of levels) is the answer's, not svc's bug.
    if (!(error instanceof RangeError && /call stack/i.test(error.message))) throw error;
    throw new SvcError(
      'failure',
      `the server answered GET ${path} with an item nested too deep for svc to print as a list item`,
      {
        code: 'bad_response',
        hint: `\`${svcCommand(ctx.settings(), `api ${shellWord(path)}`)}\` without --paginate prints each page as it came`,
      },
    );
  }
}

export async function printHead(
  ctx: Context,
  status: number,
  headers: Record<string, string | string[] | undefined>,
) {
  await ctx.out.raw(`HTTP ${status}\n`);
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== undefined) await ctx.out.raw(`${name}: ${v}\n`);
  }
  await ctx.out.raw('\n');
}

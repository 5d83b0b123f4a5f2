/**
 * What svc reads from a file or standard input for a body, a document or a secret: bounded
 * (INPUT_LIMIT), UTF-8 checked, stopped by Ctrl-C, and its failures worded once. Past 300 lines on
 * purpose: the readers (file, pipe, stream) share the limit, the abort and the error words.
 */
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { type NotUtf8, notUtf8 } from '../api/utf8.js';
import { svcCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import { holdsCredential } from '../http/redact.js';
import { judgeSecretFile } from './secret-file-mode.js';
import { systemReason } from './system-errors.js';

/** Builds the error for an input past its limit: `piped` when it came on standard input. */
type TooLong = (what: string, limit: number, piped: boolean) => UsageError;

/**
 * The most svc reads from one body or file input (`--payload`, `--input`, `--data-file`,
 * `-F @file`): 16 MiB, sixteen times the sandbox's body limit
 * (BODY_LIMIT, Fastify's bodyLimit, 1 MiB), so no body a platform takes is cut, while an endless
 * device or pipe (`--payload /dev/zero`) is refused instead of filling memory.
 */
export const INPUT_LIMIT = 16 * 1024 * 1024;

const inputTooLong: TooLong = (what, limit, piped) =>
  new UsageError(`${what} holds more than ${mebibytes(limit)}, the most svc reads from one input`, {
    hint: piped
      ? 'check what is piped in (a body is a file or a pipe that ends)'
      : 'check the path (a device such as /dev/zero never ends)',
  });

const mebibytes = (bytes: number) => `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;

/**
 * What svc says when Ctrl-C (or a kill) stops it while it reads an input (`from`: `standard
 * input`, a path) before anything was sent: a bulk file, an access file, a body.
 */
export const interruptedReading = (from: string): InterruptedError =>
  new InterruptedError(`interrupted while reading ${from}; nothing was sent`);

/**
 * A stream's bytes, to its end; past `limit` bytes the error `tooLong` makes, naming `what`, so
 * an endless stream such as `< /dev/zero` is never read into memory. When `signal` aborts (Ctrl-C)
 * the read stops at once (interruptedReading), not when a pipe that has not ended ends.
 */
export async function readStream(
  stream: Readable,
  limit: number,
  what: string,
  tooLong: TooLong = inputTooLong,
  signal?: AbortSignal,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => stream.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (signal?.aborted) stop();
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > limit) throw tooLong(what, limit, true);
      chunks.push(bytes);
    }
  } catch (error) {
    if (signal?.aborted) throw interruptedReading('standard input');
    throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  // A stream destroyed without an error ends the loop as if it had ended.
  if (signal?.aborted) throw interruptedReading('standard input');
  return Buffer.concat(chunks);
}

/**
 * The most svc reads from an access file or a saved plan (`svc plan -f`, `svc apply`): 256 MiB.
 * svc writes saved plans itself, about 670 bytes a change, so one of a few hundred thousand changes
 * is read back (16 MiB refused svc's own plan of 25,000 changes: review s15b), and `svc plan --out`
 * refuses to write one larger, which apply could not read.
 */
export const PLAN_INPUT_LIMIT = 256 * 1024 * 1024;

/**
 * The bytes of FILE, or of standard input for `-`, exactly as given (nothing added or
 * stripped), at most `limit` of them (readAtMost; INPUT_LIMIT unless said). `flag` names the
 * option in the error message. Standard input's read stops when `signal` (the command's) aborts.
 */
export const readInputBytes = (
  spec: string,
  stdin: Readable,
  flag: string,
  limit = INPUT_LIMIT,
  signal?: AbortSignal,
): Promise<Buffer> => readAtMost(spec, stdin, `${flag} ${spec}`, limit, inputTooLong, signal);

/** The most a secret input (a key, a token, a header line) may hold: a real one is a few hundred bytes. */
export const SECRET_INPUT_LIMIT = 64 * 1024;

const secretTooLong: TooLong = (what, limit, piped) =>
  new UsageError(`${what} is not a secret: it holds more than ${limit} bytes`, {
    hint: piped
      ? 'a secret is one key or token: check what is piped in'
      : 'a secret is one key or token: check the path (a device such as /dev/zero or a large file is not one)',
  });

/**
 * A secret given on standard input (a token, a client secret), read at most SECRET_INPUT_LIMIT
 * deep; stopped when `signal` (the command's) aborts.
 */
export const readSecretStdin = (stdin: Readable, signal?: AbortSignal): Promise<Buffer> =>
  readStream(stdin, SECRET_INPUT_LIMIT, 'standard input', secretTooLong, signal);

/**
 * The bytes of a secret input (FILE, or standard input for `-`), read at most `limit` bytes deep
 * (readAtMost); standard input's read stopped when `signal` aborts. A FILE that is not there and
 * looks like the secret itself (secretGivenAsPath) is not repeated in the error.
 */
export const readSecretInputBytes = (
  spec: string,
  stdin: Readable,
  flag: string,
  limit = SECRET_INPUT_LIMIT,
  signal?: AbortSignal,
  /** A secret's file (not --header-file): judged by its mode (judgeSecretFile), its warning said here. */
  warn?: (line: string) => void,
): Promise<Buffer> =>
  readAtMost(spec, stdin, `${flag} ${spec}`, limit, secretTooLong, signal, {
    opened: warn && ((info) => judgeSecretFile(flag, spec, info, warn)),
    unreadable: (error) =>
      secretGivenAsPath(spec, error)
        ? new UsageError(
            `cannot read ${flag} (its value not shown: it looks like a secret, not a path): no such file`,
            {
              hint: `${flag} takes the path of a file that holds the secret; if that was the secret, it is in your shell history and the process list now: rotate it`,
            },
          )
        : undefined,
  });

/**
 * A `*-file` option given the secret itself (`--secret-file "$WEBHOOK_SECRET"` in CI): the file
 * is not there, and the value has a credential's shape (holdsCredential: `whsec_…`, a JWT), or is
 * no path at all (no `/`, `\` or `.`) and as long as a secret svc would mask (8 characters or
 * more). "cannot read" repeated it whole into the log, where the command line is not shown
 * (attack25b L1, as review s14 masked a malformed `-H`). A missing `secret.txt` or `dir/secret` is
 * named as before; a secret holding `/` or `.` (base64, not svc's shapes) is not recognised.
 */
export function secretGivenAsPath(spec: string, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT' && code !== 'ENAMETOOLONG') return false;
  return holdsCredential(spec) || (!/[/\\.]/.test(spec) && spec.length >= 8);
}

/**
 * The bytes of FILE, or of standard input for `-`, read at most `limit` bytes deep: a regular
 * file larger is refused before it is read, and a device (/dev/zero, /dev/urandom) or a FIFO that
 * never ends once past the limit, instead of filling memory. A directory is refused by its read
 * error.
 */
async function readAtMost(
  spec: string,
  stdin: Readable,
  what: string,
  limit: number,
  tooLong: TooLong,
  signal?: AbortSignal,
  file: {
    /** The file as opened, before it is read (judgeSecretFile): throws to refuse it. */
    opened?: ((info: Stats) => void) | undefined;
    /** The error of a file that cannot be read, when its own words are wanted (else `cannot read WHAT`). */
    unreadable?: (error: unknown) => UsageError | undefined;
  } = {},
): Promise<Buffer> {
  if (spec === '-') return readStream(stdin, limit, what, tooLong, signal);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(spec, 'r');
    const info = await handle.stat();
    file.opened?.(info);
    if (info.isFile() && info.size > limit) throw tooLong(what, limit, false);
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - size));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > limit) throw tooLong(what, limit, false);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, size);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw file.unreadable?.(error) ?? new UsageError(`cannot read ${what}: ${fileErrorReason(error)}`);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * What svc says of an input it reads from standard input while that is a terminal: `login
 * --with-token` refuses (a token is never typed in view), and a file given as `-` (`roles assign
 * --file -`, `plan -f -`) is read from what is pasted once this is said (attack20 F10: it waited
 * without a word). `what` is what the input holds ("the rows").
 */
export function readsFromTerminal(flag: string, what: string): string {
  return `${flag} reads ${what} from standard input, which is this terminal`;
}

/** How typed or pasted text is ended on this system's terminals. */
export const END_OF_INPUT = process.platform === 'win32' ? 'Ctrl-Z and Enter' : 'Ctrl-D';

/** A file error in words: what went wrong with the path, for "cannot read/create …" messages. */
export function fileErrorReason(error: unknown, missing = 'no such file'): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return missing;
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return systemReason(error);
}

/** A file's first byte that is not UTF-8, in words for a message: `not UTF-8 (byte 0xE9 at offset 3); save it as UTF-8`. */
export function notUtf8Words({ offset, byte }: NotUtf8): string {
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  return `not UTF-8 (byte 0x${hex} at offset ${offset}); save it as UTF-8`;
}

/**
 * UTF-16 without a byte-order mark, by its first bytes: a NUL byte every other byte (text mostly
 * ASCII, as a CSV header is), which UTF-8 text does not hold. With a BOM it is caught as not UTF-8
 * at byte 0xFF or 0xFE. The encoding's name, or undefined.
 */
export function utf16Without(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  const pairs = Math.min(32, Math.floor(bytes.length / 2));
  if (pairs === 0) return undefined;
  let le = 0;
  let be = 0;
  for (let i = 0; i < pairs; i++) {
    const [a, b] = [bytes[2 * i]!, bytes[2 * i + 1]!];
    if (a !== 0 && b === 0) le++;
    if (a === 0 && b !== 0) be++;
  }
  // Most pairs, allowing for a few characters outside ASCII.
  if (le * 4 >= pairs * 3) return 'UTF-16LE';
  if (be * 4 >= pairs * 3) return 'UTF-16BE';
  return undefined;
}

/** UTF-16 in words for a message, with how to convert it. */
export function utf16Words(encoding: 'UTF-16LE' | 'UTF-16BE'): string {
  return `not UTF-8: it is ${encoding} (a NUL byte every other byte); save it as UTF-8, e.g. iconv -f ${encoding} -t UTF-8 FILE > NEW`;
}

/**
 * UTF-16, by its byte-order mark (FF FE, FE FF: Windows PowerShell 5's `>` writes one) or without
 * one by utf16Without: the encoding's name, or undefined. Bytes without a mark are UTF-8 to a
 * decoder (a NUL is a character), so this is asked before the UTF-8 check, not after it fails.
 */
export function utf16Of(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  return utf16Without(bytes);
}

/**
 * What is wrong with bytes read as UTF-8 text, in words (`not UTF-8: it is UTF-16LE …; save it as
 * UTF-8, e.g. iconv …`, or the first byte that is not UTF-8), or undefined when they are UTF-8:
 * the one rule of every text input (access files, bodies, secrets, bulk files), attack20 F5.
 */
export function textProblem(bytes: Uint8Array): { words: string; offset: number } | undefined {
  const utf16 = utf16Of(bytes);
  if (utf16) return { words: utf16Words(utf16), offset: 0 };
  const bad = notUtf8(bytes);
  return bad === undefined ? undefined : { words: notUtf8Words(bad), offset: bad.offset };
}

/**
 * A secret's bytes (a token, a key) as text, read as svc always has (Buffer#toString), unless they
 * are UTF-16 (a token saved by PowerShell 5's `>`): refused naming it and the fix, where its NULs
 * read as "contains whitespace" or a control character (attack20 F5). `from` names the input.
 */
export function secretText(bytes: Buffer, from: string): string {
  const utf16 = utf16Of(bytes);
  if (utf16) throw new UsageError(`${from} is ${utf16Words(utf16)}`);
  return bytes.toString('utf8');
}

/**
 * Bytes as UTF-8 text, without a leading byte-order mark (an editor may put one first: it is not
 * part of the text), or a UsageError naming the first byte that is not UTF-8 and its offset:
 * Buffer#toString would replace it with U+FFFD, and that replacement is what would be sent and
 * stored. `what` names the input (`--data-file x.json`).
 */
export function strictUtf8(bytes: Buffer, what: string): string {
  const problem = textProblem(bytes);
  if (problem !== undefined) throw new UsageError(`${what} is ${problem.words}`);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/** A text encoding other than plain UTF-8 that an editor or a shell may have saved a file in. */
export type UnusualEncoding = 'UTF-8 with a byte-order mark' | 'UTF-16LE' | 'UTF-16BE';

/**
 * Bytes saved as UTF-8 with a byte-order mark (Notepad) or as UTF-16 (Windows PowerShell 5's
 * `>`), by their byte-order mark or by utf16Without: the encoding and the text they hold (without
 * the mark), or undefined for anything else. For inputs svc takes as bytes (an HMAC key), to name
 * the likely mistake; inputs read as text go through strictUtf8.
 */
export function unusualEncoding(bytes: Buffer): { encoding: UnusualEncoding; text: string } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { encoding: 'UTF-8 with a byte-order mark', text: bytes.subarray(3).toString('utf8') };
  const le = bytes[0] === 0xff && bytes[1] === 0xfe;
  const be = bytes[0] === 0xfe && bytes[1] === 0xff;
  const encoding = le ? 'UTF-16LE' : be ? 'UTF-16BE' : utf16Without(bytes);
  if (encoding === undefined) return undefined;
  const units = Buffer.from(bytes.subarray(le || be ? 2 : 0));
  if (encoding === 'UTF-16BE') units.subarray(0, units.length - (units.length % 2)).swap16();
  return { encoding, text: units.toString('utf16le') };
}

/**
 * Before FILE `-` is read from standard input while that is a terminal: one line on stderr saying
 * what is read and how to end it, or how to pipe it in instead (`pipe`, a command), so a `--file -`
 * typed without its pipe does not look hung (attack20 F10). `it` is how the input is named again;
 * without `pipe` (a command that needs more than the input to be copied as it is) none is shown.
 *
 * A command that asks for confirmation after reading (`confirms`: what it would do) cannot be
 * answered there: the pasted input ends with Ctrl-D, and the question would read the same ended
 * input (review20c F8). Without --yes it is refused before anything is read (exit 2).
 */
export function sayReadingTerminal(
  ctx: Pick<Context, 'io' | 'out' | 'settings' | 'globals'>,
  spec: string,
  flag: string,
  what: string,
  it: 'it' | 'them',
  pipe?: string,
  confirms?: string,
): void {
  if (spec !== '-' || !ctx.io.stdinIsTTY) return;
  const piped = pipe === undefined ? undefined : `\`${svcCommand(ctx.settings(), pipe)}\``;
  if (confirms !== undefined && !ctx.globals.yes) {
    throw new UsageError(
      `${readsFromTerminal(`${flag} -`, what)}, so the confirmation asked after ${it} could not be answered (the terminal's input ends with ${it}); nothing was read`,
      {
        hint: `pass --yes to confirm ${confirms} up front${piped === undefined ? '' : `, or pipe ${it} in: ${piped}`}`,
      },
    );
  }
  const instead = piped === undefined ? '' : ` (or pipe ${it} in: ${piped})`;
  ctx.out.info(
    `${readsFromTerminal(`${flag} -`, what)}: paste ${it}, then press ${END_OF_INPUT} on an empty line${instead}`,
  );
}

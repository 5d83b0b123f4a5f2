import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { InterruptedError } from '../errors.js';
import { terminalGone } from '../system/lost-terminal.js';
import { type ExpectedResponse, readAuthorizationResponse } from './authorization-response.js';

/**
 * The other way a login over SSH finishes: the browser runs on another machine (a laptop), so its
 * redirect to svc's loopback port reaches nothing there and the page cannot be shown. Its address
 * still carries the authorization response; the user copies it and pastes it into the terminal.
 * The pasted address is read exactly as the loopback reads a request (authorization-response.ts):
 * the state must be this login's and the issuer this server's; the code is then exchanged with
 * this login's PKCE verifier, so a pasted code from another login is useless.
 */

export interface PasteOptions {
  input: Readable;
  /** The redirect URI the login sent: a pasted address must be it, with the response's query. */
  redirectUri: string;
  expected: ExpectedResponse;
  /** Writes to the terminal as it is: the question (no newline), or the end of its line. */
  prompt: (text: string) => void;
  /** Why a pasted line was not taken. */
  warn: (text: string) => void;
  /** Stops reading (the loopback got the response, or Ctrl-C). */
  signal: AbortSignal;
}

const PROMPT = 'Paste the address here: ';

/** What a pasted line means: a code, a failure that ends the login, or a reason to ask again. */
export function readPastedLine(
  line: string,
  redirectUri: string,
  expected: ExpectedResponse,
): { code: string } | { error: Error } | { retry: string } {
  const text = line.trim().replace(/^["'<]+|["'>]+$/g, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { retry: 'that is not an address; copy the whole address from the browser' };
  }
  const redirect = new URL(redirectUri);
  if (url.origin !== redirect.origin || url.pathname !== redirect.pathname) {
    return { retry: `that is not the address of this login's redirect; it starts with ${redirectUri}?` };
  }
  const result = readAuthorizationResponse(url.searchParams, expected);
  if (result.kind === 'stray') return { retry: `${result.reason}; paste the address this login ended on` };
  if (result.kind === 'failure') return { error: result.error };
  return { code: result.code };
}

/**
 * Reads pasted lines until one carries this login's response: resolves with its code, rejects
 * with a failure it carries (denied, another issuer); pending forever once stopped. It is read
 * only from a terminal, where the end of input is the user's Ctrl-D: the login ends there as at
 * Ctrl-C (exit 130). Waiting on for the loopback would leave a question nobody reads any more
 * (the terminal's input is over), and after a Ctrl-D the user expects nothing else.
 */
export function readPastedRedirect(options: PasteOptions): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (options.signal.aborted) return;
    const lines = createInterface({
      input: options.input,
      terminal: false,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let stopped = false;
    const stop = () => {
      stopped = true;
      lines.close();
    };
    options.signal.addEventListener('abort', stop, { once: true });
    lines.on('close', () => {
      options.signal.removeEventListener('abort', stop);
      if (stopped) return;
      // Ctrl-D echoes nothing: the error goes below the question, not after it.
      options.prompt('\n');
      if (terminalGone(options.input))
        reject(new InterruptedError('the terminal went away; the login was cancelled'));
      else reject(new InterruptedError('the login was cancelled at the end of input (Ctrl-D)'));
    });
    options.prompt(PROMPT);
    lines.on('line', (line) => {
      if (line.trim() === '') return options.prompt(PROMPT);
      const outcome = readPastedLine(line, options.redirectUri, options.expected);
      if ('retry' in outcome) {
        options.warn(outcome.retry);
        options.prompt(PROMPT);
        return;
      }
      stop();
      if ('code' in outcome) resolve(outcome.code);
      else reject(outcome.error);
    });
  });
}

/**
 * The address pasted back at the end of a login over SSH (src/auth/paste.ts): read as strictly as
 * the loopback reads the redirect (state, issuer, error, code).
 */
import { closeSync, openSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPastedLine, readPastedRedirect } from '../../src/auth/paste.js';
import { InterruptedError } from '../../src/errors.js';

const REDIRECT = 'http://127.0.0.1:45123/callback';
const expected = { state: 'S'.repeat(43), issuers: ['http://127.0.0.1:4010'] };
const at = (query: string) => `${REDIRECT}?${query}`;

describe('a pasted address', () => {
  it.each<[string, string, ReturnType<typeof readPastedLine>]>([
    ["the redirect with this login's state", at(`code=abc&state=${expected.state}`), { code: 'abc' }],
    [
      'the same, quoted, with spaces',
      `  "${at(`code=abc&state=${expected.state}&iss=http%3A%2F%2F127.0.0.1%3A4010`)}" `,
      { code: 'abc' },
    ],
    ['in angle brackets', `<${at(`code=abc&state=${expected.state}`)}>`, { code: 'abc' }],
    ['in two kinds of quotes', `"'${at(`code=abc&state=${expected.state}`)}'"`, { code: 'abc' }],
    [
      'quotes inside the address, which stay',
      at(`code=a'b"c<d>e&state=${expected.state}`),
      { code: `a'b"c<d>e` },
    ],
    ['not an address', 'abc', { retry: 'that is not an address; copy the whole address from the browser' }],
    [
      'another address',
      `http://127.0.0.1:9999/callback?code=abc&state=${expected.state}`,
      { retry: `that is not the address of this login's redirect; it starts with ${REDIRECT}?` },
    ],
    [
      'another login (its state)',
      at('code=abc&state=other'),
      {
        retry:
          'a response with the wrong state was turned away (possible cross-site request forgery); paste the address this login ended on',
      },
    ],
  ])('%s', (_what, line, outcome) => {
    expect(readPastedLine(line, REDIRECT, expected)).toEqual(outcome);
  });

  it.each([
    [at(`error=access_denied&state=${expected.state}`), 'authorization was denied: access_denied'],
    [
      at(`code=abc&state=${expected.state}&iss=https%3A%2F%2Fevil.example`),
      'the authorization response comes from issuer "https://evil.example", not from this server',
    ],
  ])('%s ends the login', (line, message) => {
    const outcome = readPastedLine(line, REDIRECT, expected);
    expect('error' in outcome && outcome.error.message).toBe(message);
  });

  /** A reader of pasted lines from a stream the test writes to; what it said, and its code once read. */
  function reader(signal: AbortSignal) {
    const input = new PassThrough();
    const said: string[] = [];
    let result: string | undefined;
    const code = readPastedRedirect({
      input,
      redirectUri: REDIRECT,
      expected,
      prompt: (text) => said.push(`prompt ${text}`),
      warn: (text) => said.push(`warn ${text}`),
      signal,
    });
    // Watched, not awaited: a reader that stopped stays pending for good.
    void code.then(
      (value) => {
        result = value;
      },
      () => undefined,
    );
    return { input, said, code, result: () => result };
  }

  it("is asked for again until a line carries this login's response", async () => {
    const { input, said, code } = reader(new AbortController().signal);
    input.write('\nnonsense\n');
    input.write(`${at(`code=xyz&state=${expected.state}`)}\n`);
    await expect(code).resolves.toBe('xyz');
    expect(said).toEqual([
      'prompt Paste the address here: ',
      'prompt Paste the address here: ',
      'warn that is not an address; copy the whole address from the browser',
      'prompt Paste the address here: ',
    ]);
  });

  it('asks again after a blank or all-space line, without a warning', async () => {
    const { input, said, code } = reader(new AbortController().signal);
    input.write('   \t \r\n');
    input.write(`${at(`code=xyz&state=${expected.state}`)}\r\n`);
    await expect(code).resolves.toBe('xyz');
    expect(said).toEqual(['prompt Paste the address here: ', 'prompt Paste the address here: ']);
  });

  it('says the terminal went away when its input ends because the terminal is gone (an SSH drop)', async () => {
    // A stream that says it is a terminal, on a descriptor that is none (any more): /dev/null's.
    const input = Object.assign(new PassThrough(), { isTTY: true, fd: openSync('/dev/null', 'r') });
    const said: string[] = [];
    const code = readPastedRedirect({
      input,
      redirectUri: REDIRECT,
      expected,
      prompt: (text) => said.push(`prompt ${text}`),
      warn: (text) => said.push(`warn ${text}`),
      signal: new AbortController().signal,
    });
    input.end();
    await expect(code).rejects.toThrow(
      new InterruptedError('the terminal went away; the login was cancelled'),
    );
    closeSync(input.fd);
  });

  it('ends the login at the end of input (Ctrl-D on the terminal), as Ctrl-C does, on a line of its own', async () => {
    const { input, said, code } = reader(new AbortController().signal);
    input.write('nonsense\n');
    input.end();
    await expect(code).rejects.toThrow(
      new InterruptedError('the login was cancelled at the end of input (Ctrl-D)'),
    );
    await expect(code).rejects.toBeInstanceOf(InterruptedError);
    expect(said).toEqual([
      'prompt Paste the address here: ',
      'warn that is not an address; copy the whole address from the browser',
      'prompt Paste the address here: ',
      'prompt \n',
    ]);
  });

  it('reads nothing, and asks nothing, once the login is over (aborted before or during)', async () => {
    const before = new AbortController();
    before.abort();
    const early = reader(before.signal);
    expect(early.said).toEqual([]);
    expect(early.input.listenerCount('data')).toBe(0);

    const during = new AbortController();
    const late = reader(during.signal);
    expect(late.input.listenerCount('data')).toBeGreaterThan(0);
    during.abort();
    expect(late.input.listenerCount('data')).toBe(0);
    late.input.write(`${at(`code=xyz&state=${expected.state}`)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(late.result()).toBeUndefined();
    expect(late.said).toEqual(['prompt Paste the address here: ']);
  });
});

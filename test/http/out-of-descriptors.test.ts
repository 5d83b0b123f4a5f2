// locks22 #3: a socket that could not be made for want of descriptors (`ulimit -n` small, a bulk run
// at a high --concurrency) was "cannot reach … is the server running?", and, as a connection that
// may have carried the request, a bulk row's "unknown outcome". The limit and the fix instead, as
// session 21 said them of a file's open (src/system/system-errors.ts); nothing was sent.
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/http/errors.js';
import { exchange } from '../../src/http/send.js';
import { renderError } from '../../src/output/errors.js';
import { withConcurrency } from '../../src/system/command-scope.js';
import { openFilesLimit } from '../../src/system/system-errors.js';

/** What Node's net gives undici when socket(2) fails EMFILE (seen under `ulimit -n 40`, Node 20). */
const emfile = (port: number) =>
  Object.assign(new Error(`connect EMFILE 127.0.0.1:${port} - Local (undefined:undefined)`), {
    code: 'EMFILE',
    errno: -24,
    syscall: 'connect',
  });
const agent = new Agent({ connect: (_options, done) => done(emfile(9), null) });
afterAll(() => agent.close());
const options = { timeoutMs: 5_000, maxBytes: 1024, signal: undefined };

/** The error of a POST whose socket could not be made (EMFILE), and its rendered line. */
async function refused() {
  const error = await exchange(agent, 'POST', new URL('http://127.0.0.1:9/v1/x'), {}, '{}', options).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, line: renderError(error, { json: false, debug: false }) };
}

describe('a connection out of file descriptors', () => {
  const limit = openFilesLimit();
  const ulimit = limit === undefined ? 'this process’s limit, ulimit -n' : `ulimit -n ${limit}`;

  // In a bulk command (it has --concurrency: withConcurrency), and only there, lower --concurrency
  // (review21c F7; this test predates that rule and said it outside any command).
  it('names this process’s limit and the fix, not the server; nothing was sent', async () => {
    const { error, line } = await withConcurrency(refused);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ exitCode: 1, mayHaveArrived: false });
    expect(line).toBe(
      `error: cannot connect to http://127.0.0.1:9: too many open files (${ulimit}): lower --concurrency or raise the limit; nothing was sent\n`,
    );
    expect((await refused()).line).toBe(
      `error: cannot connect to http://127.0.0.1:9: too many open files (${ulimit}): raise the limit; nothing was sent\n`,
    );
  });
});

// locks22 #3: a socket that could not be made for want of descriptors (`ulimit -n` small, a bulk run
// at a high --concurrency) was "cannot reach … is the server running?", and, as a connection that
// may have carried the request, a bulk row's "unknown outcome". The limit and the fix instead, as
// session 21 said them of a file's open (src/system/system-errors.ts); nothing was sent.
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/http/errors.js';
import { exchange } from '../../src/http/send.js';
import { renderError } from '../../src/output/errors.js';
import { inCommand, withConcurrency } from '../../src/system/command-scope.js';
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

describe('a connection out of file descriptors', () => {
  /** The words of the connection's error, made and rendered within `scope` (a command's run). */
  async function said(
    scope: <T>(run: () => Promise<T>) => Promise<T>,
  ): Promise<{ error: unknown; text: string }> {
    return scope(async () => {
      const error = await exchange(agent, 'POST', new URL('http://127.0.0.1:9/v1/x'), {}, '{}', options).then(
        () => undefined,
        (e: unknown) => e,
      );
      return { error, text: renderError(error, { json: false, debug: false }) };
    });
  }
  const limit = () => {
    const n = openFilesLimit();
    return n === undefined ? 'this process’s limit, ulimit -n' : `ulimit -n ${n}`;
  };

  it('names this process’s limit and the fix, not the server; nothing was sent', async () => {
    const { error, text } = await said((run) => inCommand(run));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ exitCode: 1, mayHaveArrived: false });
    expect(text).toBe(
      `error: cannot connect to http://127.0.0.1:9: too many open files (${limit()}): raise the limit; nothing was sent\n`,
    );
  });

  it('in a bulk command (which has --concurrency) says a lower --concurrency helps too', async () => {
    const { text } = await said((run) => inCommand(() => withConcurrency(run)));
    expect(text).toBe(
      `error: cannot connect to http://127.0.0.1:9: too many open files (${limit()}): lower --concurrency or raise the limit; nothing was sent\n`,
    );
  });
});

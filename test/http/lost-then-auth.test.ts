/**
 * review24f H1: once an attempt of a change may have arrived (its connection dropped after the
 * request was sent), every later failure of that change leaves its outcome unknown: a token
 * refresh that fails before the retry, a retry answered 401. The auth cause and its fix are kept,
 * so the user learns to log in again and to look before running the change again.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/errors.js';
import { ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { client, useLocalServers } from '../helpers/proxy-kit.js';

const local = useLocalServers();
const retry = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 };

/** A server that destroys the socket of the first `drops` POSTs and answers the others with `status`. */
async function dropping(drops: number, status = 201) {
  const seen = { posts: 0 };
  const server = createServer((req, res) => {
    local.track(req.socket);
    seen.posts++;
    if (seen.posts <= drops) {
      req.socket.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        status === 401 ? { error: { code: 'unauthenticated', message: 'token expired' } } : { id: 'r_1' },
      ),
    );
  });
  const port = await local.listen(server);
  return { url: `http://127.0.0.1:${port}`, seen };
}

const refused = () =>
  new ConnectionError('cannot reach http://auth.example (connection refused)', {
    mayHaveArrived: false,
    hint: 'is the server running? check the URL; nothing was sent',
  });

describe('a change whose first attempt was lost, then a later failure', () => {
  it('the token refresh before the retry fails: unknown, with the refresh failure and its fix', async () => {
    const server = await dropping(Number.POSITIVE_INFINITY);
    let calls = 0;
    const api = client(server.url, {
      allowInsecureHttp: true,
      retry,
      credentials: {
        origin: 'profile test',
        secrets: () => [],
        token: async () => {
          calls++;
          if (calls === 1) return 'tok';
          throw refused();
        },
      },
    });
    const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
    await api.close();
    expect(server.seen.posts).toBe(1);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.outcome).toBe('unknown');
    expect(error.message).toBe(
      "an earlier attempt's answer was lost (the connection dropped), and the retry failed (cannot reach http://auth.example (connection refused)), so the outcome is unknown: the platform may have made this change",
    );
    expect(error.hint).not.toMatch('nothing was sent');
    expect(error.hint).toMatch(/^is the server running\? check the URL/);
    expect(error.hint).toMatch(/check whether it was made before running the command again$/);
  });

  it('the token refresh is refused (log in again): unknown, and the hint still says to log in', async () => {
    const server = await dropping(Number.POSITIVE_INFINITY);
    let calls = 0;
    const api = client(server.url, {
      allowInsecureHttp: true,
      retry,
      credentials: {
        origin: 'profile test',
        secrets: () => [],
        token: async () => {
          calls++;
          if (calls === 1) return 'tok';
          throw new AuthError('the session of profile test has ended', { hint: 'log in again: svc login' });
        },
      },
    });
    const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
    await api.close();
    expect(server.seen.posts).toBe(1);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toBe(
      "an earlier attempt's answer was lost (the connection dropped), and the retry failed (the session of profile test has ended), so the outcome is unknown: the platform may have made this change",
    );
    expect(error.hint).toBe(
      'log in again: svc login, then check whether it was made before running the command again',
    );
  });

  for (const renew of ['same token', 'throws'] as const) {
    it(`the retry is answered 401 (renew ${renew}): unknown, not "rejected" alone`, async () => {
      const server = await dropping(1, 401);
      const api = client(server.url, {
        allowInsecureHttp: true,
        retry,
        credentials: {
          origin: 'profile test',
          secrets: () => [],
          token: async () => 'tok',
          renew: async () => {
            if (renew === 'throws')
              throw new AuthError('the session of profile test has ended; log in again');
            return 'tok';
          },
        },
      });
      const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
      await api.close();
      expect(server.seen.posts).toBe(2);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      const stopped =
        renew === 'throws'
          ? 'the session of profile test has ended; log in again'
          : 'profile test was rejected: token expired';
      expect(error.message).toBe(
        `an earlier attempt's answer was lost (the connection dropped), and the retry failed (${stopped}), so the outcome is unknown: the platform may have made this change`,
      );
    });
  }

  it('a 2xx to the retry is the answer (not unknown)', async () => {
    const server = await dropping(1, 201);
    const api = client(server.url, { allowInsecureHttp: true, retry });
    const response = await api.post('/v1/roles', { name: 'x' });
    await api.close();
    expect([response.status, response.afterLostAnswer, server.seen.posts]).toEqual([201, true, 2]);
  });
});

/**
 * The HTTP client's rules for a change it cannot know the outcome of (s13 api13 findings 1, 11,
 * 13): Ctrl-C once a change was sent leaves it unknown (exit 130, with its key), not cancelled;
 * a change without an idempotency key is not sent again after a failure that may follow its
 * application; a Retry-After beyond the cap is not waited for.
 */
import { describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { exitCodeFor } from '../../src/errors.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';
import { OutcomeUnknownError, RateLimitError } from '../../src/http/errors.js';
import { virtualClock } from '../helpers/context.js';
import { answers, type HostileServer, useHostileServer } from '../helpers/hostile.js';

const hostile = useHostileServer();

function client(server: HostileServer, extra: Partial<ClientConfig> = {}) {
  const clock = virtualClock();
  return new ApiClient({
    baseUrl: server.url,
    tenant: 't-1',
    credentials: staticCredentials('tok_canary_123456', 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    now: clock.now,
    sleep: clock.sleep,
    ...extra,
  });
}

describe('ApiClient: a change whose outcome is unknown', () => {
  it('Ctrl-C once a POST was sent: unknown, exit 130, with the key it carried', async () => {
    const server = await hostile();
    server.answer(() => {});
    const controller = new AbortController();
    const pending = client(server, { signal: controller.signal })
      .post('/v1/things', { a: 1 })
      .catch((e) => e);
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect([exitCodeFor(error), error.message, error.key]).toEqual([
      130,
      'interrupted after the request was sent, so the outcome is unknown: the platform may have made this change',
      server.seen[0]!.headers['idempotency-key'],
    ]);
  });

  it.each([
    [
      '503',
      answers.json(503, { error: { code: 'service_unavailable', message: 'down' } }, { 'retry-after': '0' }),
      1,
    ],
    [
      'a dropped connection',
      ((_req, res) => res.socket?.destroy()) as Parameters<HostileServer['answer']>[0],
      1,
    ],
    [
      '429',
      answers.json(429, { error: { code: 'rate_limited', message: 'slow' } }, { 'retry-after': '1' }),
      4,
    ],
  ])('a POST without a key answered %s: sent once, or retried after a 429', async (_name, answer, times) => {
    const server = await hostile();
    server.answer(answer);
    await client(server)
      .post('/v2/payments', { amount: '1.00' }, { idempotencyKey: false })
      .catch((e) => e);
    expect(server.seen.length).toBe(times);
    expect(server.seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('a Retry-After beyond the cap is not waited for', async () => {
    const server = await hostile();
    server.answer(
      answers.json(429, { error: { code: 'rate_limited', message: 'slow' } }, { 'retry-after': '61' }),
    );
    const error = await client(server)
      .get('/v1/x')
      .catch((e) => e);
    expect([error instanceof RateLimitError, server.seen.length]).toEqual([true, 1]);
  });
});

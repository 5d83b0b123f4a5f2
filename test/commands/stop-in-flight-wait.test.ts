/**
 * review22a F1: a 409 idempotency_request_in_progress says a request with this key is running on
 * the platform (the documented re-run after a lost answer, or a bulk resume after a SIGKILL), and svc
 * waits for it. A stop during that wait said "nothing was changed", while the earlier attempt may
 * make the change (the same wait, not stopped, ends "the outcome is unknown"). It now says unknown.
 * The 409 comes from a proxy and the stop from an injected clock: no latency, no race.
 */
import { describe, expect, it } from 'vitest';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
let sent = 0;
/** What the retry after the 409 meets: another 409 (the stop tests), or a 429 beyond svc's wait. */
let then: 'in-progress' | 'rate-limited' = 'in-progress';
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    if (method !== 'POST' || path !== '/v1/oauth/clients') return undefined;
    sent++;
    if (sent > 1 && then === 'rate-limited')
      return {
        status: 429,
        body: { error: { code: 'rate_limited', message: 'too many requests' } },
        headers: { 'retry-after': '86400' },
      };
    return {
      status: 409,
      body: {
        error: { code: 'idempotency_request_in_progress', message: 'a request with this key is in progress' },
      },
      headers: { 'retry-after': '1' },
    };
  },
});

/** `oauth create --idempotency-key K`, answered 409 in progress and stopped in its first wait. */
async function stoppedInFlightWait(extra: string[] = []) {
  const controller = new AbortController();
  const clock = {
    now: () => Date.now(),
    sleep: async (_ms: number, signal?: AbortSignal) => {
      controller.abort();
      if (signal?.aborted) throw new Error('aborted');
    },
  };
  sent = 0;
  const argv = ['oauth', 'create', '--name', 'inflight', '--redirect-uri', 'https://r.example/cb'];
  argv.push('--scope', 'read:exceptions', '--idempotency-key', 'k-inflight', '--show-secret', ...extra);
  return svc.run(argv, { clock, signal: controller.signal, env: { SVC_BASE_URL: proxy().url } });
}

describe('a stop while waiting for an earlier attempt still in progress (409)', () => {
  it('says the outcome is unknown, never "nothing was changed" (exit 130)', async () => {
    const r = await stoppedInFlightWait();
    expect([r.code, r.stdout, sent]).toEqual([130, '', 1]);
    expect(r.stderr).not.toMatch(/nothing was changed/);
    const error = r.stderr.split('\n').find((line) => line.startsWith('error: '));
    expect(error).toBe(
      'error: interrupted while waiting for its earlier attempt, still in progress on the platform: POST /v1/oauth/clients was not sent again, so the outcome is unknown: the platform may have made this change; ' +
        're-run with --idempotency-key k-inflight to get the same answer, secret included, without creating a second client (the platform keeps it for 24 hours)',
    );
  });

  it('--json: "outcome": "unknown"', async () => {
    const r = await stoppedInFlightWait(['--json']);
    expect([r.code, sent]).toEqual([130, 1]);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ outcome: 'unknown' });
  });
});

describe('after a 409 in progress, a retry refused without an answer about the earlier attempt', () => {
  it('a 429 to the retry leaves the outcome unknown, with the key to re-run with (review22d F1)', async () => {
    then = 'rate-limited';
    sent = 0;
    try {
      const clock = { now: () => Date.now(), sleep: async () => {} };
      const argv = ['oauth', 'create', '--name', 'inflight-429', '--redirect-uri', 'https://r.example/cb'];
      argv.push('--scope', 'read:exceptions', '--idempotency-key', 'k-429', '--show-secret', '--json');
      const r = await svc.run(argv, { clock, env: { SVC_BASE_URL: proxy().url } });
      expect([r.code, r.stdout, sent]).toEqual([1, '', 2]);
      const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(error).toMatchObject({ outcome: 'unknown' });
      expect(error.hint).toMatch(/--idempotency-key k-429/);
    } finally {
      then = 'in-progress';
    }
  });
});

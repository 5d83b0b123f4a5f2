/**
 * truth22 5: a stop (Ctrl-C, a cancelled CI job's SIGTERM) while a single verb waits out a
 * Retry-After said a bare "error: interrupted". It now says what was sent and what was not, as
 * the other stop words do: a change refused 429 was not sent again and nothing was changed; one
 * whose answer was a 503 (the change may have been made) not sent again, its outcome unknown.
 */
import { describe, expect, it } from 'vitest';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
/** The status POST /v1/roles is answered with (Retry-After: 30); the 503's after the sandbox made it. */
let answer: 429 | 503 = 429;
let sent = 0;
const isRole = (method: string, path: string) => method === 'POST' && path === '/v1/roles';
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    if (!isRole(method, path)) return undefined;
    sent++;
    return answer === 429
      ? {
          status: 429,
          body: { error: { code: 'rate_limited', message: 'slow down' } },
          headers: { 'retry-after': '30' },
        }
      : undefined;
  },
  reshape: (method, path) =>
    answer === 503 && isRole(method, path)
      ? {
          status: 503,
          body: JSON.stringify({ error: { code: 'service_unavailable', message: 'try again later' } }),
          headers: { 'retry-after': '30' },
        }
      : undefined,
});

/** `roles create` through the proxy, stopped in its first 30 s wait. */
async function stoppedInWait(name: string) {
  const controller = new AbortController();
  const clock = {
    now: () => Date.now(),
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (ms >= 30_000) controller.abort();
      if (signal?.aborted) throw new Error('aborted');
    },
  };
  sent = 0;
  return svc.run(['roles', 'create', '--name', name, '--permission', 'account.read'], {
    clock,
    signal: controller.signal,
    env: { SVC_BASE_URL: proxy().url },
  });
}

describe('a stop during a single verb’s Retry-After wait', () => {
  it('after a 429: not sent again, nothing was changed (exit 130)', async () => {
    answer = 429;
    const r = await stoppedInWait('stop-429');
    expect([r.code, r.stdout, sent]).toEqual([130, '', 1]);
    expect(r.stderr).toBe(
      'rate limited (HTTP 429); retrying in 30 s (1 of 3)\n' +
        'error: interrupted while waiting 30 s to retry after HTTP 429, rate limited: POST /v1/roles was not sent again; nothing was changed\n',
    );
  });

  it('after a 503 (the change may have been made): not sent again, its outcome unknown', async () => {
    answer = 503;
    const r = await stoppedInWait('stop-503');
    expect([r.code, r.stdout, sent]).toEqual([130, '', 1]);
    const error = r.stderr.split('\n').find((line) => line.startsWith('error: '));
    expect(error).toMatch(
      /^error: interrupted while waiting 30 s to retry after HTTP 503: POST \/v1\/roles was not sent again, so the outcome is unknown: the platform may have made this change; /,
    );
  });
});

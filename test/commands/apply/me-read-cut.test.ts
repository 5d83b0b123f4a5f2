/**
 * review26b L3, then brief fixgrant4 item 3: `svc apply` reads who the caller is (GET /v1/me), for
 * every grant's 2xx to be judged by (grantAnswerNotMade), once at the start of a run with grants
 * to send, before any is sent (it read it when a grant's 2xx named a granter, after the grant, so
 * a read that failed made every grant unknown). That read is cut by the run's stop: a Ctrl-C while
 * it waits to retry (a 503's Retry-After) sends no second attempt and no grant. The stop comes
 * while the proxy answers the read, before svc has its answer; the clock is virtual, so the wait
 * takes no time either way and the test asserts what was sent, never how long it took.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { bulkUser } from '../../helpers/bulk.js';
import { virtualClock } from '../../helpers/context.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 3 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-me-read-cut-');
const GRANT = /^POST \/v1\/users\/[^/]+\/roles$/;

describe("svc apply: the caller's /v1/me read at the start is cut by Ctrl-C", () => {
  it('a stop while the read waits to retry: no second GET /v1/me, no grant sent, exit 130', async () => {
    const stop = new AbortController();
    let held = false;
    proxy().set({
      reshape: (answer) => {
        const reads = proxy().seen.filter((line) => line === 'GET /v1/me').length;
        // The plan's own read answered; the read of who the caller is: 503, a retry after 1 s,
        // Ctrl-C pressed meanwhile.
        if (!held && answer.method === 'GET' && answer.path === '/v1/me' && reads === 2) {
          held = true;
          answer.status = 503;
          answer.headers['retry-after'] = '1';
          answer.body = { error: { code: 'service_unavailable', message: 'try again' } };
          stop.abort();
        }
      },
    });
    const file = writeFile(
      dir,
      'grant.yaml',
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - { user: ${bulkUser(1)}, role: tenant_viewer, justification: apply }\n`,
    );
    const r = await svc.run(
      ['apply', '-f', file, '--yes', '--ndjson', '--journal', join(dir, 'grant.journal')],
      { env: { SVC_BASE_URL: proxy().url }, clock: virtualClock(Date.now()), signal: stop.signal },
    );
    expect(held, r.stderr).toBe(true);
    const { seen } = proxy();
    expect(seen.filter((line) => line === 'GET /v1/me')).toEqual(['GET /v1/me', 'GET /v1/me']);
    expect(seen.filter((line) => GRANT.test(line))).toEqual([]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      130,
      '',
      `${JSON.stringify({ error: { code: 'interrupted', message: 'interrupted; the request was cancelled', exit_code: 130 } })}\n`,
    ]);
  });
});

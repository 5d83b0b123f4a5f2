/**
 * review26b L3: `svc apply` reads who the caller is (GET /v1/me) when a grant's 2xx names a granter
 * (grantAnswerNotMade); that read is cut by the run's stop as the step's other requests are: a
 * Ctrl-C while it waits to retry (a 503's Retry-After) sends no second attempt. The stop comes
 * while the proxy answers the read, before svc has its answer; the clock is virtual, so the wait
 * takes no time either way and the test asserts what was sent, never how long it took. The read
 * cut, the grant naming a granter is an unknown outcome of an interrupted run (review27b M2).
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

describe("svc apply: the caller's /v1/me read after a grant's 2xx is cut by Ctrl-C", () => {
  it('a stop while the read waits to retry: no second GET /v1/me', async () => {
    const stop = new AbortController();
    let granted = false;
    let held = false;
    proxy().set({
      reshape: (answer) => {
        if (GRANT.test(`${answer.method} ${answer.path}`) && answer.status < 300) granted = true;
        else if (granted && !held && answer.method === 'GET' && answer.path.startsWith('/v1/me')) {
          // The read after the grant: answered 503 (a retry after 1 s), Ctrl-C pressed meanwhile.
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
    const seen = proxy().seen;
    const after = seen.slice(seen.findIndex((line) => GRANT.test(line)) + 1);
    // Was two: the read waited out the Retry-After and asked again after the stop.
    expect(after.filter((line) => line.startsWith('GET /v1/me'))).toEqual(['GET /v1/me']);
    // The grant's answer names a granter and the stop cut the read of who the caller is: the run
    // stopped, the step's outcome unknown (review27b M2: it was "✓ 1 applied", the read unread).
    expect(r.stderr).toMatch(
      /^stopping: 1 request in flight; interrupt again to stop now\n0 applied, 1 with an unknown outcome \(\d+\.\d s\)\n\{"error":\{"code":"interrupted","message":"interrupted after 1 of 1","exit_code":130,/,
    );
    expect(r.code, r.stderr).toBe(130);
  });
});

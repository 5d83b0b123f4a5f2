/**
 * The exit codes of the binary itself, one per category of cli-contract.md, and Ctrl-C during a
 * request. Spawned: the exit status of a process and a real SIGINT are the point. What each
 * command prints for each failure is tested in-process (test/commands/me, api, tenants).
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { runInProcess } from '../helpers/context.js';
import { useHeldRequests } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, sandboxEnv, svc } from '../helpers/svc.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });
/** A request held unanswered at a proxy until the test lets it go: one svc is still waiting on. */
const slow = useHeldRequests(sandbox, () => true);
const REQUEST = 'request req_[0-9a-f]+';

describe('exit codes of bin/svc.js', () => {
  it.each<[number, string, string[], Record<string, string | undefined>, RegExp]>([
    [0, 'success', ['me'], {}, /^$/],
    [
      1,
      'a server that cannot be reached',
      ['me'],
      { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
      /^error: cannot reach http:\/\/127\.0\.0\.1:9: connect ECONNREFUSED 127\.0\.0\.1:9; /,
    ],
    [
      2,
      'a usage error',
      ['tenants', 'ls', '--limit', '0'],
      {},
      /^error: --limit must be an integer from 1 to 10000000, got "0"$/,
    ],
    [
      3,
      'no credential',
      ['me'],
      { SVC_TOKEN: undefined },
      /^error: not logged in: profile "default" has no credential; /,
    ],
    [
      4,
      'a tenant outside the credential',
      ['me'],
      { SVC_TENANT: tenantId('wayne-clearing') },
      new RegExp(
        `^error: tenant ${tenantId('wayne-clearing')} is not one of your credential's tenants \\(HTTP 403, tenant_forbidden, ${REQUEST}\\); use a tenant your credential has \\(\`svc me\` lists them, run without this --tenant or SVC_TENANT\\), or a credential that has this tenant$`,
      ),
    ],
    [
      5,
      'an unknown record',
      ['api', 'GET', '/v1/reconciliations/rec_missing'],
      {},
      new RegExp(
        `^error: reconciliations record rec_missing not found \\(HTTP 404, not_found, ${REQUEST}\\)$`,
      ),
    ],
  ])('exit %i: %s', async (code, _what, argv, change, stderr) => {
    const r = await svc(argv, { env: { ...env, ...change } });
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr.trimEnd()).toMatch(stderr);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exit 6: a conflict (an idempotency key reused with other parameters)', async () => {
    const first = await runInProcess(
      ['api', 'POST', '/v1/exceptions', '-f', 'idempotency_key=k-1', '-f', 'text=a'],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    const r = await svc(['api', 'POST', '/v1/exceptions', '-f', 'idempotency_key=k-1', '-f', 'text=b'], {
      env,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: idempotency key "k-1" was already used with different parameters \\(HTTP 409, idempotency_key_reused, ${REQUEST}\\)\\n$`,
      ),
    );
  });

  it('exit 130: Ctrl-C aborts the request in flight', async () => {
    // The request is held unanswered (and svc's own timeout is 10 minutes): a svc that did not
    // cancel it would wait on. An exit 130 that says it cancelled the request, within a bound far
    // above need and not timed otherwise, came before any answer (the old test timed it from the
    // spawn, which once took 5 s under load).
    const held = slow.hold();
    // --debug says when the request goes out: the signal comes once it is on its way.
    const child = spawn(process.execPath, [BIN, '--debug', 'me'], {
      env: baseEnv({ ...env, SVC_BASE_URL: slow.url(), SVC_TIMEOUT: '600' }),
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = new Promise((r) => child.on('close', r));
    await Promise.race([held.arrived, code.then(() => Promise.reject(new Error(`svc ended: ${stderr}`)))]);
    child.kill('SIGINT');
    const stopped = await Promise.race([code, sleep(30_000).then(() => 'still waiting 30 s after Ctrl-C')]);
    child.kill('SIGKILL');
    expect(stopped, stderr).toBe(130);
    expect(stderr).toMatch(/^\* GET http:\/\/127\.0\.0\.1:\d+\/v1\/me\n/);
    expect(stderr).toMatch(/\nerror: interrupted; the request was cancelled\n$/);
  });
});

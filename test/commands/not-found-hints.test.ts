import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

// Findings tenants 7 / examples 5 (s10): not-found hints said TENANT and WEBHOOK where svc knew the
// value, pointed at a webhook's deliveries when the webhook itself was unknown, and told a user who
// gave a role id to "give the role id".
const svc = useSandboxContext();
const REQ = /request req_[0-9a-f]+/g;
const run = async (argv: string[]) => {
  const r = await svc.run(argv);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(REQ, 'request req_X') };
};
const webhook = async () => JSON.parse((await svc.run(['webhooks', 'ls', '--json'])).stdout)[0].id as string;

describe('not-found hints name what svc knows', () => {
  it('api-keys revoke names the tenant as given', async () => {
    expect(await run(['tenants', 'api-keys', 'revoke', 'acme-treasury', 'key_3f2a', '--yes'])).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: API key key_3f2a not found (HTTP 404, not_found, request req_X); see `svc tenants api-keys ls acme-treasury` for its keys\n',
    });
  });

  it('deliveries get and dlq get of a known webhook name it', async () => {
    const w = await webhook();
    expect(await run(['webhooks', 'deliveries', 'get', w, 'dlv_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: delivery dlv_nope not found (HTTP 404, not_found, request req_X); see \`svc webhooks deliveries ls ${w}\` for its deliveries\n`,
    });
    expect(await run(['webhooks', 'dlq', 'get', w, 'dlq_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: dead-letter queue entry dlq_nope not found (HTTP 404, not_found, request req_X); see \`svc webhooks dlq ls ${w}\` for its dead-letter queue\n`,
    });
  });

  it.each([
    [['webhooks', 'deliveries', 'get', 'wh_nope', 'dlv_nope']],
    [['webhooks', 'deliveries', 'get', 'wh_nope', 'dlv_nope', '--payload']],
    [['webhooks', 'dlq', 'get', 'wh_nope', 'dlq_nope']],
  ])('%j: an unknown webhook points at the webhooks', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/; see `svc webhooks ls` for the webhooks of the tenant\n$/);
  });

  it('roles get of a role id that is not there does not ask for a role id', async () => {
    expect(await run(['roles', 'get', 'role_6370e8230e917ee4366c75ff'])).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: no role "role_6370e8230e917ee4366c75ff" in this tenant (HTTP 404, not_found); no role of this tenant, live or deleted, has that id: see `svc roles ls --include-deleted` for their ids (--tenant for another tenant\'s)\n',
    });
  });
});

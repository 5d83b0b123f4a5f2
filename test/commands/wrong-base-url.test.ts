/**
 * A 404 from a route every server of the API has (GET /v1/me: a tenant slug's look-up, `svc me`)
 * says the base URL may be wrong, not where to look for a resource (review s12-a #3): a
 * `webhooks get` whose tenant look-up got 404 was told to list the webhooks, with the very base
 * URL that caused the error.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const EU = 'acme-payments-eu';
const REQ = /request req_[0-9a-f]+/g;

const freshShell = () => ({ ...svc.env(), SVC_TENANT: undefined, SVC_BASE_URL: undefined });
const wrong = () => `${svc.sandbox().url}/wrong`;
const hint =
  "; the base URL may be wrong (every server of this API answers GET /v1/me): check --base-url, SVC_BASE_URL or the profile's base_url\n";

const run = async (argv: string[]) => {
  const r = await svc.run(argv, { env: freshShell() });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(REQ, 'request req_X') };
};

describe('a 404 from GET /v1/me names the base URL, not a listing', () => {
  it('webhooks get with a tenant slug: the tenant look-up’s 404', async () => {
    expect(await run(['--base-url', wrong(), '--tenant', EU, 'webhooks', 'get', 'wh_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: no route GET /wrong/v1/me (HTTP 404, not_found, request req_X)${hint}`,
    });
  });

  it('svc me', async () => {
    expect(await run(['--base-url', wrong(), 'me'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: no route GET /wrong/v1/me (HTTP 404, not_found, request req_X)${hint}`,
    });
  });

  it('a webhook not found on the right base URL keeps its own hint', async () => {
    const right = svc.sandbox().url;
    expect(await run(['--base-url', right, '--tenant', EU, 'webhooks', 'get', 'wh_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: webhook wh_nope not found (HTTP 404, not_found, request req_X); see \`svc --base-url ${right} --tenant ${EU} webhooks ls\` for the webhooks of the tenant\n`,
    });
  });
});

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { as, writeFile, writes } from '../../helpers/ascode.js';
import { fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { codeTokens, createClient, sandboxSession, TREASURY } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Session 17 (closing list, platform): svc plan predicted the users-only refusal (403
// user_required: creating or changing an OAuth client mints or re-points a standing credential)
// for an API key, but not for a vendor's OAuth token given as SVC_TOKEN: the plan said the changes
// would be made, and svc apply then met the platform's 403. GET /v1/me says a third-party
// client's token (credential.third_party), so plan marks them refused as the sandbox refuses them.
const svc = useSandboxContext();
const dir = useTempDir('svc-plan-vendor-');
let vendor: { client_id: string };
let byVendor: Record<string, string>;
let keptId = '';

beforeAll(async () => {
  const sandbox = svc.sandbox();
  vendor = await createClient(sandbox, { name: 'vendor-sync', scopes: ['admin'] });
  const tokens = await codeTokens(sandbox, vendor as { client_id: string; client_secret: string }, {
    scope: 'admin',
  });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  byVendor = { SVC_TOKEN: tokens.body.access_token, SVC_TENANT: TREASURY };
  const kept = await as(sandbox, TREASURY, 'POST', '/v1/oauth/clients', {
    name: 'kept-portal',
    redirect_uris: ['https://portal.example/cb'],
    scopes: ['read:exceptions'],
  });
  keptId = kept.client_id;
});

const FILE =
  'version: 1\nblocks:\n  - tenants: acme-treasury\n    oauth_clients:\n' +
  '      - name: kept-portal\n        scopes: [read:exceptions]\n' +
  '        redirect_uris: [https://portal.example/cb, https://vendor.example/steal]\n' +
  '      - name: new-portal\n        scopes: [read:exceptions]\n        redirect_uris: [https://vendor.example/cb]\n';

const REASONS =
  'change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), ' +
  "or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may)";

const userRequired = (action: string, mints: string) =>
  `the platform refuses it (user_required): ${action} is for users themselves, not an OAuth client acting for one (this token is ${vendor.client_id}'s): ${mints} would outlive the client; ask the user to do it with their own login`;

describe("svc plan and apply with a third-party OAuth client's token", () => {
  it('GET /v1/me says the token is a third party client’s; svc-cli’s own login is not', async () => {
    const me = await svc.run(['api', '/v1/me'], { env: byVendor });
    expect(JSON.parse(me.stdout).credential).toMatchObject({
      kind: 'oauth_access_token',
      client_id: vendor.client_id,
      third_party: true,
    });
    const own = await sandboxSession(svc.sandbox());
    const mine = await svc.run(['api', '/v1/me'], {
      env: { SVC_TOKEN: own.access_token!, SVC_TENANT: TREASURY },
    });
    expect(JSON.parse(mine.stdout).credential).toMatchObject({
      kind: 'oauth_access_token',
      client_id: 'svc-cli',
      third_party: false,
    });
  });

  it('plan marks creating or changing an OAuth client refused (user_required), as the platform refuses it', async () => {
    const file = writeFile(dir, 'clients.yaml', FILE);
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: byVendor, clock: fixedClock() });
    expect(planned.code).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'kept-portal',
        userRequired(
          'changing OAuth clients',
          "a client's settings (where its codes go, what its tokens reach, how long they last)",
        ),
      ],
      ['create', 'new-portal', userRequired('creating OAuth clients', 'an OAuth client and its secret')],
    ]);
    expect(planned.stderr).toBe(
      'plan: 1 to create, 1 to update, 0 to delete in 1 of 1 tenant\n' +
        `warning: svc apply refuses 2 of these changes: they would ${REASONS} (see "refused")\n`,
    );
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], { env: byVendor, clock: fixedClock() });
    expect([applied.code, applied.stdout, applied.stderr.split('\n').slice(-2)]).toEqual([
      2,
      '',
      [
        "error: svc apply refuses 2 of the plan's changes (each on a line above); take them out of the file, or have someone who may make them apply it; nothing was applied",
        '',
      ],
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('apply of a plan the user saved with their own login refuses it through the token (exit 6, nothing sent)', async () => {
    const file = writeFile(dir, 'saved.yaml', FILE);
    const saved = join(dir, 'saved.plan.json');
    const admin = { SVC_TOKEN: svc.sandbox().adminToken, SVC_TENANT: TREASURY };
    const planned = await svc.run(['plan', '-f', file, '--out', saved], { env: admin, clock: fixedClock() });
    expect([planned.code, planned.stderr]).toEqual([
      10,
      `plan: 1 to create, 1 to update, 0 to delete in 1 of 1 tenant\nplan saved to ${saved}; svc apply ${saved} applies it while the live state is unchanged\n`,
    ]);
    const before = await writes(svc.sandbox());
    const r = await svc.run(['apply', saved, '--yes'], { env: byVendor, clock: fixedClock() });
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr).toBe(
      `acme-treasury: OAuth client kept-portal (${keptId}): ${userRequired('changing OAuth clients', "a client's settings (where its codes go, what its tokens reach, how long they last)")}\n` +
        `acme-treasury: OAuth client new-portal: ${userRequired('creating OAuth clients', 'an OAuth client and its secret')}\n` +
        `error: ${saved} was planned by you (usr_admin), and through OAuth client ${vendor.client_id}'s token you may not make 2 of its changes (each on a line above): they would ${REASONS}; nothing was applied; apply it with your own login (svc login), not a third-party client's token\n`,
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });
});

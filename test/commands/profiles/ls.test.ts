// svc profiles ls: every output mode, exactly (see test/commands/tenants/ls.test.ts for the shape).
import { describe, expect, it } from 'vitest';
import { runProfilesLs } from '../../../src/commands/profiles/ls.js';
import { testContext, type VerbOptions } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

const DEFAULT = {
  name: 'default',
  active: true,
  base_url: 'https://api.example.com',
  app_url: null,
  tenant: 't-123',
  org: null,
  client_id: null,
  credential: 'token svc_pk_****WXYZ',
};
const STAGING = {
  ...DEFAULT,
  name: 'staging',
  active: false,
  base_url: 'https://staging.example',
  tenant: null,
  credential: null,
};

describe('svc profiles ls', () => {
  it.each<[string, VerbOptions, string]>([
    [
      'a table, * marking the active profile, on a terminal',
      { tty: { stdout: true } },
      '   NAME     BASE URL                 TENANT  CREDENTIAL\n' +
        '*  default  https://api.example.com  t-123   token svc_pk_****WXYZ\n' +
        '-  staging  https://staging.example  -       -\n',
    ],
    [
      'tab-separated rows in a pipe',
      {},
      '*\tdefault\thttps://api.example.com\tt-123\ttoken svc_pk_****WXYZ\n\tstaging\thttps://staging.example\t\t\n',
    ],
    [
      'a JSON array with --json',
      { globals: { json: true } },
      `[\n${JSON.stringify(DEFAULT)},\n${JSON.stringify(STAGING)}\n]\n`,
    ],
    [
      'one object per line with --ndjson',
      { globals: { ndjson: true } },
      `${JSON.stringify(DEFAULT)}\n${JSON.stringify(STAGING)}\n`,
    ],
  ])('prints %s', async (_what, options, expected) => {
    const { ctx, stdout, stderr } = testContext({ ...options, env: env() });
    await runProfilesLs(ctx);
    expect([stdout(), stderr()]).toEqual([expected, '']);
  });

  it('never shows the stored key itself', async () => {
    const { ctx, stdout } = testContext({ env: env(), globals: { json: true } });
    await runProfilesLs(ctx);
    expect(stdout()).not.toContain('0123456789abcdef');
  });
});

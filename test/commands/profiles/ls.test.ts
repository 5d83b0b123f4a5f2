// svc profiles ls: every output mode, exactly (see test/commands/tenants/ls.test.ts for the shape).
import { describe, expect, it } from 'vitest';
import { runProfilesLs } from '../../../src/commands/profiles/ls.js';
import { testContext, type VerbOptions } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

const DEFAULT = {
  name: 'default',
  active: true,
  in_use: true,
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
  in_use: false,
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

  describe('with SVC_PROFILE naming another profile than the active one', () => {
    const IN_USE =
      'SVC_PROFILE=staging puts profile "staging" (>) in force in this shell, not the active profile "default" (*)\n';
    it.each<[string, VerbOptions, string, string]>([
      [
        'the star on the active profile and > on the one in force, with a note, on a terminal',
        { tty: { stdout: true } },
        '   NAME     BASE URL                 TENANT  CREDENTIAL\n' +
          '*  default  https://api.example.com  t-123   token svc_pk_****WXYZ\n' +
          '>  staging  https://staging.example  -       -\n',
        IN_USE,
      ],
      [
        'the same markers in a pipe',
        {},
        '*\tdefault\thttps://api.example.com\tt-123\ttoken svc_pk_****WXYZ\n>\tstaging\thttps://staging.example\t\t\n',
        IN_USE,
      ],
      [
        'in_use with --json',
        { globals: { json: true } },
        `[\n${JSON.stringify({ ...DEFAULT, in_use: false })},\n${JSON.stringify({ ...STAGING, in_use: true })}\n]\n`,
        '',
      ],
      [
        'in_use with --ndjson',
        { globals: { ndjson: true } },
        `${JSON.stringify({ ...DEFAULT, in_use: false })}\n${JSON.stringify({ ...STAGING, in_use: true })}\n`,
        '',
      ],
    ])('prints %s', async (_what, options, expected, note) => {
      const { ctx, stdout, stderr } = testContext({ ...options, env: { ...env(), SVC_PROFILE: 'staging' } });
      await runProfilesLs(ctx);
      expect([stdout(), stderr()]).toEqual([expected, note]);
    });

    it('says when SVC_PROFILE names no profile', async () => {
      const { ctx, stdout, stderr } = testContext({ env: { ...env(), SVC_PROFILE: 'nope' } });
      await runProfilesLs(ctx);
      expect(stdout()).toBe(
        '*\tdefault\thttps://api.example.com\tt-123\ttoken svc_pk_****WXYZ\n\tstaging\thttps://staging.example\t\t\n',
      );
      expect(stderr()).toBe(
        'SVC_PROFILE=nope names no profile: commands in this shell fail until it is unset or the profile is created\n',
      );
    });

    it('says nothing more when SVC_PROFILE names the active profile', async () => {
      const { ctx, stderr } = testContext({ env: { ...env(), SVC_PROFILE: 'default' } });
      await runProfilesLs(ctx);
      expect(stderr()).toBe('');
    });
  });

  it('never shows the stored key itself', async () => {
    const { ctx, stdout } = testContext({ env: env(), globals: { json: true } });
    await runProfilesLs(ctx);
    expect(stdout()).not.toContain('0123456789abcdef');
  });
});

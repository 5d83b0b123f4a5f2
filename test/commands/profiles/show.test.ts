import { describe, expect, it } from 'vitest';
import { runProfilesShow } from '../../../src/commands/profiles/show.js';
import { testContext, type VerbOptions } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc profiles show', () => {
  it.each<[string, string | undefined, VerbOptions, string]>([
    [
      'the profile in use, with its masked credential, on a terminal',
      undefined,
      { tty: { stdout: true } },
      'name        default (active)\nbase_url    https://api.example.com\napp_url     -\ntenant      t-123\n' +
        'org         -\nclient_id   -\ncredential  token svc_pk_****WXYZ\n',
    ],
    [
      'another profile, in a pipe',
      'staging',
      {},
      'name\tstaging\nbase_url\thttps://staging.example\napp_url\t\ntenant\t\norg\t\nclient_id\t\ncredential\t\n',
    ],
    [
      'another profile, with --json',
      'staging',
      { globals: { json: true } },
      '{\n  "name": "staging",\n  "active": false,\n  "in_use": false,\n  "base_url": "https://staging.example",\n  "app_url": null,\n' +
        '  "tenant": null,\n  "org": null,\n  "client_id": null,\n  "credential": null\n}\n',
    ],
    [
      'the profile SVC_PROFILE puts in force, saying so',
      undefined,
      { env: { SVC_PROFILE: 'staging' } },
      'name\tstaging (in use: SVC_PROFILE)\nbase_url\thttps://staging.example\napp_url\t\ntenant\t\norg\t\nclient_id\t\ncredential\t\n',
    ],
    [
      'the active profile while SVC_PROFILE puts another in force',
      'default',
      { env: { SVC_PROFILE: 'staging' } },
      'name\tdefault (active; not in use: SVC_PROFILE=staging)\nbase_url\thttps://api.example.com\napp_url\t\ntenant\tt-123\n' +
        'org\t\nclient_id\t\ncredential\ttoken svc_pk_****WXYZ\n',
    ],
  ])('shows %s', async (_what, name, options, expected) => {
    const { ctx, stdout, stderr } = testContext({ ...options, env: { ...env(), ...options.env } });
    await runProfilesShow(ctx, name);
    expect([stdout(), stderr()]).toEqual([expected, '']);
  });
});

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
      '{\n  "name": "staging",\n  "active": false,\n  "base_url": "https://staging.example",\n  "app_url": null,\n' +
        '  "tenant": null,\n  "org": null,\n  "client_id": null,\n  "credential": null\n}\n',
    ],
  ])('shows %s', async (_what, name, options, expected) => {
    const { ctx, stdout, stderr } = testContext({ ...options, env: env() });
    await runProfilesShow(ctx, name);
    expect([stdout(), stderr()]).toEqual([expected, '']);
  });
});

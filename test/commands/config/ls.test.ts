import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConfigLs } from '../../../src/commands/config/ls.js';
import { runInProcess, testContext, type VerbOptions } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc config ls', () => {
  it.each<[string, VerbOptions, string, string]>([
    [
      'a table of every setting and where it comes from, on a terminal',
      { tty: { stdout: true } },
      'KEY        VALUE                    SOURCE\n' +
        'base_url   https://api.example.com  profile\n' +
        'app_url    https://api.example.com  default\n' +
        'tenant     from-env                 SVC_TENANT\n' +
        'org        -                        -\n' +
        'client_id  -                        -\n',
      'profile "default" (active profile)\n',
    ],
    [
      'tab-separated rows in a pipe',
      {},
      'base_url\thttps://api.example.com\tprofile\napp_url\thttps://api.example.com\tdefault\n' +
        'tenant\tfrom-env\tSVC_TENANT\norg\t\t\nclient_id\t\t\n',
      'profile "default" (active profile)\n',
    ],
    [
      'a JSON array with --json (the source as svc names it)',
      { globals: { json: true } },
      '[\n{"key":"base_url","value":"https://api.example.com","source":"profile"},\n' +
        '{"key":"app_url","value":"https://api.example.com","source":"default"},\n' +
        '{"key":"tenant","value":"from-env","source":"env"},\n' +
        '{"key":"org","value":null,"source":null},\n{"key":"client_id","value":null,"source":null}\n]\n',
      '',
    ],
  ])('prints %s', async (_what, options, stdout, stderr) => {
    const made = testContext({ ...options, env: { ...env(), SVC_TENANT: 'from-env' } });
    await runConfigLs(made.ctx);
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
  });

  it.each<[string, Record<string, string>, string[], string]>([
    ['SVC_PROFILE, named as the settings table names it', { SVC_PROFILE: 'staging' }, [], 'SVC_PROFILE'],
    ['-p', {}, ['-p', 'staging'], '-p'],
  ])('names where the profile came from: %s', async (_what, extra, argv, source) => {
    const r = await runInProcess([...argv, 'config', 'ls'], { ...env(), ...extra });
    expect([r.code, r.stderr]).toEqual([0, `profile "staging" (${source})\n`]);
  });

  it('says when no profile is active and "default" is used', async () => {
    const r = await runInProcess(['config', 'ls'], {
      ...env(),
      SVC_CONFIG_DIR: `${env().SVC_CONFIG_DIR}/none`,
    });
    expect([r.code, r.stderr]).toEqual([0, 'profile "default" (no profile is active)\n']);
  });

  it('reports a corrupt config file by name with exit 2 and leaves it alone', async () => {
    const file = join(env().SVC_CONFIG_DIR!, 'config.json');
    writeFileSync(file, '{ not json', { mode: 0o600 });
    expect(await runInProcess(['config', 'ls'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read ${file}: it is not valid JSON; fix or remove the file; svc never resets it on its own\n`,
    });
  });
});

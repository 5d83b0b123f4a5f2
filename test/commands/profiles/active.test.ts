/**
 * The active profile going away: `profiles rm` of the active profile says that none is active
 * now and how to choose one; an active_profile in config.json that names no profile (removed by
 * hand, or by an older svc) is exit 5 saying so, never "no API base URL … run `svc sandbox start`".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const KEY_WARNING =
  'warning: the API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix svc_pk_012… ' +
  'in `svc --base-url https://api.example.com tenants api-keys ls t-123`, then revoke it with `svc --base-url https://api.example.com tenants api-keys revoke t-123 KEY_ID`\n';

function setActive(name: string): void {
  const file = join(env().SVC_CONFIG_DIR!, 'config.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.active_profile = name;
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
}

describe('the active profile', () => {
  it('profiles rm of the active profile says no profile is active now, naming the others', async () => {
    expect(await runInProcess(['profiles', 'rm', 'default', '--yes'], env())).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ removed profile "default" (https://api.example.com)\n' +
        KEY_WARNING +
        'warning: no profile is active now; choose one with `svc profiles use NAME` (yours: staging)\n',
    });
    const r = await runInProcess(['roles', 'ls'], env());
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: 'error: no profile is active; choose one with `svc profiles use NAME` (yours: staging)\n',
    });
  });

  it('with --json the answer says active_profile null', async () => {
    const r = await runInProcess(['profiles', 'rm', 'default', '--yes', '--json'], env());
    expect([r.code, JSON.parse(r.stdout)]).toEqual([
      0,
      {
        removed: 'default',
        revocation: 'not_applicable',
        active_profile: null,
        outcome: 'removed',
        profile: 'default',
      },
    ]);
  });

  it('profiles rm of another profile leaves the active one alone and says nothing of it', async () => {
    const r = await runInProcess(['profiles', 'rm', 'staging', '--yes'], env());
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: '✓ removed profile "staging" (https://staging.example)\n',
    });
  });

  it.each([['roles ls'], ['config ls'], ['auth status'], ['me']])(
    'an active profile that does not exist: %s exits 5 saying so',
    async (command) => {
      setActive('gone');
      expect(await runInProcess(command.split(' '), env())).toEqual({
        code: 5,
        stdout: '',
        stderr:
          'error: the active profile "gone" does not exist; choose one with `svc profiles use NAME` (yours: default, staging)\n',
      });
    },
  );

  it('profiles ls says the active profile does not exist', async () => {
    setActive('gone');
    const r = await runInProcess(['profiles', 'ls'], env());
    expect([r.code, r.stderr]).toEqual([
      0,
      'the active profile "gone" does not exist; choose one with `svc profiles use NAME` (yours: default, staging)\n',
    ]);
  });
});

/**
 * No profile active (everyday13 F7 4): after `svc profiles rm <active>`, `config get` talked of a
 * profile "default" that does not exist, `config ls` printed its (empty) settings with exit 0, and
 * `config set` silently created "default" and made it active, so the next commands ran against an
 * empty profile. Now they say no profile is active (exit 5, as `svc me` does) and change nothing;
 * on a first run (no profile at all) `config set` still creates "default", and says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const NONE_ACTIVE = 'error: no profile is active; choose one with `svc profiles use NAME` (yours: staging)\n';

describe('config with no active profile while others exist', () => {
  const env = useTwoProfiles();
  const config = () => JSON.parse(readFileSync(join(env().SVC_CONFIG_DIR!, 'config.json'), 'utf8'));
  beforeEach(async () => {
    const r = await runInProcess(['profiles', 'rm', 'default', '--yes'], env());
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([['config get tenant'], ['config ls'], ['config ls --json'], ['config unset org']])(
    '%s says no profile is active, exit 5',
    async (command) => {
      expect(await runInProcess(command.split(' '), env())).toEqual({
        code: 5,
        stdout: '',
        stderr: command.endsWith('--json')
          ? `${JSON.stringify({
              error: {
                code: 'not_found',
                message: 'no profile is active',
                exit_code: 5,
                hint: 'choose one with `svc profiles use NAME` (yours: staging)',
              },
            })}\n`
          : NONE_ACTIVE,
      });
    },
  );

  it('config set refuses the same way and creates no profile', async () => {
    const before = config();
    expect(await runInProcess(['config', 'set', 'org', 'org_demo'], env())).toEqual({
      code: 5,
      stdout: '',
      stderr: NONE_ACTIVE,
    });
    expect(config()).toEqual(before);
    expect(config().active_profile).toBeUndefined();
    expect(new ConfigStore(env().SVC_CONFIG_DIR!).hasProfile('default')).toBe(false);
  });

  it('-p NAME still reads and sets that profile', async () => {
    expect(await runInProcess(['-p', 'staging', 'config', 'set', 'org', 'org_demo'], env())).toEqual({
      code: 0,
      stdout: '',
      stderr: '✓ set org for profile "staging"\n',
    });
    expect(await runInProcess(['-p', 'staging', 'config', 'get', 'org'], env())).toEqual({
      code: 0,
      stdout: 'org_demo\n',
      stderr: '',
    });
  });

  it('a new profile named with -p is said to be new, and is not made active', async () => {
    const r = await runInProcess(['-p', 'prod', 'config', 'set', 'org', 'org_demo', '--json'], env());
    expect([r.code, JSON.parse(r.stdout)]).toEqual([
      0,
      { profile: 'prod', key: 'org', value: 'org_demo', profile_created: true, made_active: false },
    ]);
    expect(config().active_profile).toBeUndefined();
  });
});

describe('config set on a first run (no profile at all)', () => {
  const dirs = useTempDirs();
  it('creates "default", makes it active, and says so', async () => {
    const env = { ...dirs(), NO_COLOR: '1' };
    expect(await runInProcess(['config', 'set', 'org', 'org_demo'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr: '✓ set org for profile "default" (a new profile, now the active one)\n',
    });
    expect(await runInProcess(['config', 'get', 'org'], env)).toEqual({
      code: 0,
      stdout: 'org_demo\n',
      stderr: '',
    });
  });
});

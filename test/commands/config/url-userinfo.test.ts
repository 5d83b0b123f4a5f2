// brief fixfs 3: a profile's base_url holding a user name or password (an older svc saved it, or
// config.json was edited) was refused when the profile was read, so every command refused first,
// `svc config set base_url …` that would mend it too. Now it is refused where it would be used (a
// request, `config get`), with the exact command that mends it; the password is never printed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const configDir = () => env().SVC_CONFIG_DIR as string;
const PASSWORD = 'Zq8HxkVw3mPq9RtYb7LcNe2WfUa5JdKs';
const config = () => readFileSync(join(configDir(), 'config.json'), 'utf8');
const HINT = 'credentials go in the credential store: `svc login`, or SVC_TOKEN';
const saved = async (profile: string, url: string) =>
  new ConfigStore(configDir()).setProfileValues(profile, { base_url: url });

describe("a profile's base_url with a user name or password", () => {
  it('is refused where it would be used, with the command that mends it; config set mends it', async () => {
    await saved('default', `https://admin:${PASSWORD}@api.example.com/api`);
    const line = `error: base_url in profile "default" must not hold a user name or password; remove them: \`svc config set base_url https://api.example.com/api\`; ${HINT}\n`;
    // app_url unset: it is the base URL, mended by setting base_url.
    for (const argv of [
      ['me'],
      ['tenants', 'ls'],
      ['config', 'get', 'base_url'],
      ['config', 'get', 'app_url'],
    ]) {
      expect(await runInProcess(argv, env()), argv.join(' ')).toEqual({ code: 2, stdout: '', stderr: line });
    }
    const listed = await runInProcess(['profiles', 'ls'], env());
    expect([listed.code, listed.stdout.includes(PASSWORD), listed.stderr.includes(PASSWORD)]).toEqual([
      0,
      false,
      false,
    ]);
    expect(await runInProcess(['config', 'set', 'base_url', 'https://api.example.com/api'], env())).toEqual({
      code: 0,
      stdout: '',
      stderr: '✓ set base_url for profile "default"\n',
    });
    expect(config()).not.toContain(PASSWORD);
  });

  it('config unset and profiles rm reach it; -p names the profile in the fix', async () => {
    await saved('staging', `http://ops@127.0.0.1:4010`);
    expect(await runInProcess(['-p', 'staging', 'me'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: base_url in profile "staging" must not hold a user name or password; remove them: `svc -p staging config set base_url http://127.0.0.1:4010`; credentials go in the credential store: `svc -p staging login`, or SVC_TOKEN\n',
    });
    expect(await runInProcess(['-p', 'staging', 'config', 'unset', 'base_url'], env())).toMatchObject({
      code: 0,
      stdout: '',
    });
    await saved('staging', `http://ops:${PASSWORD}@127.0.0.1:4010`);
    const removed = await runInProcess(['profiles', 'rm', 'staging', '--yes'], env());
    expect([removed.code, removed.stderr.includes(PASSWORD)]).toEqual([0, false]);
    expect(config()).not.toContain(PASSWORD);
  });

  it('with a query too: the fix drops both, and shows neither', async () => {
    await saved('default', `https://u:${PASSWORD}@api.example.com/?token=${PASSWORD}`);
    expect(await runInProcess(['me'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: base_url in profile "default" must not hold a user name or password; remove them: \`svc config set base_url https://api.example.com\`; ${HINT}\n`,
    });
  });
});

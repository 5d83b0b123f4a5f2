// review25c L1: with a credentials.json svc cannot parse, `config get/set/unset/ls` exited 2
// (`cannot read …/credentials.json: it is not valid JSON`): every run read it for the list of
// profile names, though a profile that has settings needs no such list and these commands no
// credential. A command that needs the file still says it cannot read it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const configDir = () => env().SVC_CONFIG_DIR as string;
beforeEach(() => writeFileSync(join(configDir(), 'credentials.json'), '{bad'));

describe('an unparseable credentials.json', () => {
  it('config set, get, unset and ls of a profile with settings work as before', async () => {
    const run = (...argv: string[]) => runInProcess(argv, env());
    expect(await run('config', 'set', 'org', 'org_x')).toEqual({
      code: 0,
      stdout: '',
      stderr: '✓ set org for profile "default"\n',
    });
    expect(await run('config', 'get', 'org')).toEqual({ code: 0, stdout: 'org_x\n', stderr: '' });
    expect(await run('-p', 'staging', 'config', 'get', 'base_url')).toEqual({
      code: 0,
      stdout: 'https://staging.example\n',
      stderr: '',
    });
    const ls = await run('config', 'ls', '--json');
    expect([
      ls.code,
      ls.stderr,
      JSON.parse(ls.stdout).find((r: { key: string }) => r.key === 'org')?.value,
    ]).toEqual([0, '', 'org_x']);
    expect((await run('config', 'unset', 'org')).code).toBe(0);
    expect(
      JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8')).profiles.default.org,
    ).toBeUndefined();
  });

  it('a command that needs the credential still says the file cannot be read, exit 2', async () => {
    const r = await runInProcess(['auth', 'token'], env());
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: cannot read .*credentials\.json: it is not valid JSON; fix or remove the file/,
    );
  });
});

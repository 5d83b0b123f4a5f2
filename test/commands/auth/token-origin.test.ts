/**
 * `svc auth token` hands out a stored credential only for the origin it was issued for, as every
 * API command does (one check: auth/credentials.ts); `svc config set base_url` to another origin
 * says the stored credential does not apply there; the mismatch hint keeps -p NAME.
 */
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
const ISSUED = 'http://127.0.0.1:45001';
const OTHER = 'http://127.0.0.1:45998';
const KEY = 'svc_pk_0123456789abcdefWXYZ';

async function profile(name: string) {
  const env = { ...dirs(), NO_COLOR: '1' };
  const store = new ConfigStore(env.SVC_CONFIG_DIR);
  await store.setProfileValues(name, { base_url: ISSUED });
  await store.setCredential(name, {
    type: 'token',
    access_token: KEY,
    origin: ISSUED,
    obtained_at: '2026-01-15T12:00:00.000Z',
  });
  return { env, store };
}

const mismatch = (name: string, target: string, p: string) =>
  `error: profile "${name}" holds a credential for ${ISSUED}, not for ${target}; svc sends a stored credential only to the origin it was stored for; ` +
  `log in there with \`svc ${p}login --base-url ${target}\` (or pass another -p NAME to keep this profile as it is), or set SVC_TOKEN\n`;

describe('svc auth token: the origin binding', () => {
  it('prints the credential for the origin it was issued for', async () => {
    const { env } = await profile('f2');
    expect(await runInProcess(['-p', 'f2', 'auth', 'token'], env)).toEqual({
      code: 0,
      stdout: `${KEY}\n`,
      stderr: '',
    });
  });

  it.each([
    [
      'the profile base_url',
      (store: ConfigStore) => store.setProfileValues('f2', { base_url: OTHER }),
      {},
      [],
    ],
    ['SVC_BASE_URL', async () => {}, { SVC_BASE_URL: OTHER }, []],
    ['--base-url', async () => {}, {}, ['--base-url', OTHER]],
  ])('refuses (exit 3) when %s points elsewhere', async (_what, change, extraEnv, flags) => {
    const { env, store } = await profile('f2');
    await change(store);
    const r = await runInProcess(['-p', 'f2', ...flags, 'auth', 'token'], { ...env, ...extraEnv });
    expect(r).toEqual({ code: 3, stdout: '', stderr: mismatch('f2', OTHER, '-p f2 ') });
  });

  it('the same words an API command gives', async () => {
    const { env } = await profile('f2');
    const r = await runInProcess(['-p', 'f2', 'tenants', 'ls'], { ...env, SVC_BASE_URL: OTHER });
    expect(r).toEqual({ code: 3, stdout: '', stderr: mismatch('f2', OTHER, '-p f2 ') });
  });
});

describe('svc config set base_url: another origin than the credential', () => {
  it('warns that the stored credential does not apply there', async () => {
    const { env } = await profile('f2');
    const r = await runInProcess(['-p', 'f2', 'config', 'set', 'base_url', `${OTHER}/`], env);
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ set base_url for profile "f2"\n' +
        `warning: the credential of profile "f2" was issued for ${ISSUED} and does not apply to ${OTHER}: svc will not send it there; log in there with \`svc -p f2 login\`\n`,
    });
  });

  it('says nothing more for the same origin', async () => {
    const { env } = await profile('f2');
    const r = await runInProcess(['-p', 'f2', 'config', 'set', 'base_url', `${ISSUED}/`], env);
    expect(r.stderr).toBe('✓ set base_url for profile "f2"\n');
  });
});

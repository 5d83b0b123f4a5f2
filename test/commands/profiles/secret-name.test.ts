/**
 * F1 (findings-config16): a credential pasted as a profile name (-p, SVC_PROFILE) is refused with
 * one line (exit 2) that repeats none of it, before any "create one with" suggestion, and nothing
 * is stored; a profile an older svc saved under such a name is never printed in clear.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs();
const KEY = 'svc_sk_hFyY6xMJkhSRIijloIkdgRXG6BSkcdHX';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwOi8vMTI3LjAuMC4xIiwic3ViIjoidXNyX2FkbWluIn0.CoIYeovnjUFXsh_isrs-4dhaIRNZ646dREUmCyzM';
const REFUSED = (kind: string) =>
  `error: that is ${kind}, not a profile name; nothing was saved; name the profile with -p NAME or SVC_PROFILE; an API key or token goes in the credential store (\`svc login --with-token\`) or SVC_TOKEN\n`;

describe('a credential as a profile name', () => {
  it('is refused from -p and SVC_PROFILE, repeating none of it, and nothing is saved', async () => {
    const env = dirs();
    for (const [argv, extra] of [
      [['-p', KEY, 'me'], {}],
      [['-p', KEY, 'config', 'set', 'base_url', 'http://127.0.0.1:9'], {}],
      [['config', 'set', 'base_url', 'http://127.0.0.1:9'], { SVC_PROFILE: KEY }],
      [['-p', KEY, 'login', '--base-url', 'http://127.0.0.1:9', '--with-token'], {}],
    ] as const) {
      const r = await runInProcess([...argv], { ...env, ...extra }, { stdin: `${KEY}\n` });
      expect(r).toEqual({ code: 2, stdout: '', stderr: REFUSED('an API key') });
    }
    expect(existsSync(join(env.SVC_CONFIG_DIR, 'config.json'))).toBe(false);
    expect(existsSync(join(env.SVC_CONFIG_DIR, 'credentials.json'))).toBe(false);
    const jwt = await runInProcess(['-p', JWT, 'me'], env);
    expect(jwt).toEqual({ code: 2, stdout: '', stderr: REFUSED('an access token') });
  });

  it('saved by an older svc, is masked in profiles ls (also --json)', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({
        profiles: { [KEY]: { base_url: 'http://127.0.0.1:9' }, prod: { base_url: 'http://127.0.0.1:8' } },
      }),
    );
    for (const argv of [
      ['profiles', 'ls'],
      ['profiles', 'ls', '--json'],
      ['-p', 'prod', 'profiles', 'ls'],
    ]) {
      const r = await runInProcess(argv, env);
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('hFyY6xMJ');
      expect(r.stdout).toContain('svc_sk_');
    }
  });

  it('saved by an older svc, can be removed with profiles rm (R5), its name masked in every line', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({
        profiles: { [KEY]: { base_url: 'http://127.0.0.1:9' }, prod: { base_url: 'http://127.0.0.1:8' } },
        active_profile: 'prod',
      }),
    );
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'credentials.json'),
      JSON.stringify({ profiles: { [KEY]: { type: 'token', access_token: 'svc_pk_0123456789abcdefWXYZ' } } }),
      { mode: 0o600 },
    );
    const r = await runInProcess(['profiles', 'rm', KEY, '--yes'], env);
    expect([r.code, r.stdout]).toEqual([0, '']);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe('✓ removed profile "svc_sk_[redacted]" (http://127.0.0.1:9)');
    expect(lines.at(-2)).toBe(
      'warning: the name of that profile was a credential, which an older svc kept in config.json (a file people copy and commit); rotate it (revoke it and make a new one)',
    );
    expect(r.stderr).not.toContain('hFyY6xMJ');
    const files = ['config.json', 'credentials.json'].map((f) =>
      readFileSync(join(env.SVC_CONFIG_DIR, f), 'utf8'),
    );
    for (const text of files) expect(text).not.toContain('svc_sk_');
    expect(JSON.parse(files[0]!).profiles.prod).toEqual({ base_url: 'http://127.0.0.1:8' });
    // A name no profile has is still refused as a credential: nothing is made or echoed.
    const again = await runInProcess(['profiles', 'rm', KEY, '--yes'], env);
    expect(again).toEqual({ code: 2, stdout: '', stderr: REFUSED('an API key') });
  });

  it('saved by an older svc, can be logged out of with -p (R5), its name masked', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({ profiles: { [KEY]: { base_url: 'http://127.0.0.1:9' } } }),
    );
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'credentials.json'),
      JSON.stringify({ profiles: { [KEY]: { type: 'token', access_token: 'svc_pk_0123456789abcdefWXYZ' } } }),
      { mode: 0o600 },
    );
    const r = await runInProcess(['-p', KEY, 'logout'], env);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr.split('\n')[0]).toBe(
      '✓ logged out of profile "svc_sk_[redacted]" (http://127.0.0.1:9): removed the credential',
    );
    expect(r.stderr).not.toContain('hFyY6xMJ');
    expect(r.stderr).toContain(
      'remove the profile with `svc profiles rm "$NAME"`, then rotate the credential\n',
    );
    expect(readFileSync(join(env.SVC_CONFIG_DIR, 'credentials.json'), 'utf8')).not.toContain('svc_sk_');
  });
});

describe('the active profile named with a credential by an older svc (review16f F4)', () => {
  it('profiles show (no name) shows it masked and says how to remove it, not that a key was typed', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({ profiles: { [KEY]: { base_url: 'http://127.0.0.1:9' } }, active_profile: KEY }),
    );
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'credentials.json'),
      JSON.stringify({ profiles: { [KEY]: { type: 'token', access_token: 'svc_pk_0123456789abcdefWXYZ' } } }),
      { mode: 0o600 },
    );
    const warning =
      'warning: the name of that profile is a credential, which an older svc kept in config.json (a file people copy and commit): remove the profile with `svc profiles rm "$NAME"`, then rotate the credential\n';
    const r = await runInProcess(['profiles', 'show'], env);
    expect(r).toEqual({
      code: 0,
      stdout:
        'name\tsvc_sk_[redacted] (active)\nbase_url\thttp://127.0.0.1:9\napp_url\t\ntenant\t\norg\t\nclient_id\t\ncredential\ttoken svc_pk_****WXYZ\n',
      stderr: warning,
    });
    const json = await runInProcess(['profiles', 'show', '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'svc_sk_[redacted]', active: true, in_use: true });
    expect(json.stderr).toBe(warning);
    for (const out of [r, json]) expect(out.stdout + out.stderr).not.toContain('hFyY6xMJ');
    // A credential no profile is named with is still refused, none of it repeated.
    const typed = await runInProcess(['profiles', 'show', 'svc_sk_AAAAbbbbCCCCddddEEEEffffGGGGhhhh'], env);
    expect(typed).toEqual({ code: 2, stdout: '', stderr: REFUSED('an API key') });
  });
});

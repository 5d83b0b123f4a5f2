import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  consent,
  consentRobot,
  printedLogin,
  spawnSvc,
  storedCredential,
  TREASURY,
} from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

/**
 * Every process's arguments, as `ps -eo args` lists them, read from /proc itself: procps is not
 * among the tools .ci/run installs, and a fresh container may not have it.
 */
function processList(): string {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {
        return ''; // ended since the listing
      }
    })
    .join('\n');
}

/**
 * Canary secrets: a real client secret, access token and refresh token are followed through
 * every way out — --debug traces, errors, the process list, and the files svc writes — and
 * must appear only in the 0600 credential store (and the 0600 --secret-file asked for).
 */
const sandbox = useSandbox();
const root = useTempDir('svc-canary-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = join(root, 'config');
const secretFile = join(root, 'vendor.secret');
const browser = consentRobot();
const env = () => ({
  SVC_CONFIG_DIR: dir,
  SVC_STATE_DIR: join(root, 'state'),
  SVC_CACHE_DIR: join(root, 'cache'),
  SVC_BASE_URL: sandbox().url,
});

const outputs: string[] = [];
function record(...texts: string[]): void {
  outputs.push(...texts);
}

function filesUnder(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const full = join(path, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

let clientId = '';
let secret = '';

describe('secrets never leak', () => {
  it('oauth create --debug: the secret goes only to the 0600 file', async () => {
    const r = await svc(
      [
        '--debug',
        'oauth',
        'create',
        '--name',
        'Canary',
        '--redirect-uri',
        'http://127.0.0.1/callback',
        '--scope',
        'read:exceptions',
        '--secret-file',
        secretFile,
      ],
      { env: { ...env(), SVC_TOKEN: sandbox().adminToken, SVC_TENANT: TREASURY } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"client_secret":"[redacted]"');
    secret = readFileSync(secretFile, 'utf8').trim();
    clientId = /client id\t(\S+)/.exec(r.stdout)![1]!;
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    record(r.stdout, r.stderr);
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('login --debug: nothing in the trace, the output or the process list', async () => {
    const live = spawnSvc(
      ['--debug', 'login', '--client-id', clientId, '--client-secret-file', secretFile, '--no-browser'],
      env(),
    );
    const { url } = await printedLogin(live);
    const cmdline = readFileSync(`/proc/${live.child.pid}/cmdline`, 'utf8');
    const ps = processList();
    expect(cmdline).toContain('login');
    expect(ps).toContain(`login --client-id ${clientId} --client-secret-file`);
    const { location } = await consent(url);
    const code = location!.searchParams.get('code')!;
    await fetch(location!);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('grant_type=authorization_code&code=%5Bredacted%5D');
    expect(result.stderr).toContain('code_verifier=%5Bredacted%5D');
    expect(result.stderr).toContain('client_secret=%5Bredacted%5D');
    expect(result.stderr).toContain('"access_token":"[redacted]"');
    const credential = storedCredential(dir);
    expect(credential.client_secret).toBe(secret);
    for (const text of [cmdline, ps]) expect(text).not.toContain(secret);
    record(result.stdout, result.stderr, cmdline, ps);
    for (const canary of [secret, code, credential.access_token, credential.refresh_token])
      expect(result.stdout + result.stderr).not.toContain(canary);
  });

  it('refresh --debug, auth status and auth token --debug: tokens masked', async () => {
    const before = storedCredential(dir);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 3700 } });
    const me = await svc(['--debug', 'me'], { env: env() });
    expect(me.code, me.stderr).toBe(0);
    expect(me.stderr).toContain('grant_type=refresh_token&refresh_token=%5Bredacted%5D');
    const after = storedCredential(dir);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const status = await svc(['auth', 'status', '--json'], { env: env() });
    record(me.stdout, me.stderr, status.stdout, status.stderr);
    for (const canary of [
      secret,
      before.access_token,
      before.refresh_token,
      after.access_token,
      after.refresh_token,
    ])
      expect(me.stdout + me.stderr + status.stdout + status.stderr).not.toContain(canary);
  });

  it('error messages: a refused secret is not repeated', async () => {
    const wrong = 'svc_cs_canary-wrong-secret-0000000000000000000000';
    const r = await svc(
      ['--debug', '-p', 'other', 'login', '--client-id', clientId, '--client-secret-stdin'],
      {
        env: { ...env(), SVC_BROWSER: browser },
        input: wrong,
      },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^error: the authorization code could not be exchanged for tokens: client authentication failed/m,
    );
    record(r.stdout, r.stderr);
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });

  it('files: the tokens and the secret are only in the 0600 credential store (and the secret file asked for)', () => {
    const credential = storedCredential(dir);
    const tokens = [credential.access_token, credential.refresh_token];
    const written = filesUnder(root);
    expect(written).toContain(join(dir, 'credentials.json'));
    expect(written).toContain(join(dir, 'config.json'));
    for (const file of written) {
      const text = readFileSync(file).toString('latin1');
      if (file === join(dir, 'credentials.json')) {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        continue;
      }
      for (const canary of tokens) expect(text, file).not.toContain(canary);
      if (file !== secretFile) expect(text, file).not.toContain(secret);
    }
    // And nothing svc printed in this file's tests held one.
    for (const text of outputs) for (const canary of [...tokens, secret]) expect(text).not.toContain(canary);
  });
});

/**
 * What svc says of an API key its issuer's wind-down stopped (everyday13 F1, F5, F9, F7 2/3/5): a
 * key acts only while its issuer holds its role without an end date, and acts again once they do,
 * so a stopped key is not revoked — `logout` says so and names the revoke command (to be run with
 * a user's login, never `-p` of the profile that held the key); a replayed `api-keys create` does
 * not write it as usable; a login replacing a stored key or token says it was only forgotten.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess } from '../../helpers/context.js';
import { call, useGrantRules } from '../../helpers/sandbox.js';

const { sandbox, TREASURY, key, user, admin, as, inHours, grant, customRole } = useGrantRules('issuer-stop');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-issuer-stop-'));
  dirs.push(dir);
  return dir;
};

/** The issuer's permanent tenant_admin given an end (or made permanent again with null). */
async function retime(userId: string, expiresAt: string | null) {
  const r = await call(sandbox(), 'PATCH', `/v1/users/${userId}/roles/tenant_admin`, {
    ...admin(),
    body: { expires_at: expiresAt, justification: 'wind the admin down' },
  });
  expect(r.status, r.text).toBe(200);
}

/** A service-role key issued by a permanent tenant_admin. */
async function issued(userId: string, name = 'sync') {
  await grant(userId, 'tenant_admin', null);
  const r = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
    ...as(userId),
    body: { kind: 'service_role', name, justification: 'nightly sync job key', idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; key: string };
}

const stoppedReason = (userId: string, until: string) =>
  `this API key acts only while ${userId}, who issued it, holds every permission of tenant_admin without an end date; ` +
  `they hold them only until ${until}: have someone who holds them without an end date issue a new key`;

/** A profile "default" holding `token`, and the env of a run on it. */
async function storing(token: string) {
  const dir = tempDir();
  await new ConfigStore(dir).setProfileValues('default', { base_url: sandbox().url }); // as a login stores it
  await new ConfigStore(dir).setCredential('default', {
    type: 'token',
    access_token: token,
    obtained_at: new Date().toISOString(),
  });
  return { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url, SVC_TENANT: TREASURY, NO_COLOR: '1' };
}

const BY = 'with the login of a user who holds api_key.manage (a key cannot revoke keys)';

describe('svc logout of a key its issuer’s wind-down stopped', () => {
  it('says it is stopped, not revoked, and how to revoke it; the key indeed acts again', async () => {
    const made = await issued(user(1));
    const until = inHours(8);
    await retime(user(1), until);
    expect(await runInProcess(['logout'], await storing(made.key))).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${sandbox().url}): removed the credential\n` +
        `warning: the API key ${made.id} is stopped, not revoked: the platform refuses it now (${stoppedReason(user(1), until)}), ` +
        'and it acts again once its issuer holds its role without an end date; svc only forgot it; ' +
        `revoke it ${BY}: \`svc tenants api-keys revoke acme-treasury ${made.id}\`\n`,
    });
    await retime(user(1), null);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: made.key })).status).toBe(200);
  });
});

describe('svc logout --json of a stopped key', () => {
  it('says it is stopped, why, and the command that revokes it (the tenant by its slug)', async () => {
    const made = await issued(user(2));
    const until = inHours(8);
    await retime(user(2), until);
    const r = await runInProcess(['logout', '--json'], await storing(made.key));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual({
      state: 'stopped',
      id: made.id,
      tenant: 'acme-treasury',
      stopped_reason: stoppedReason(user(2), until),
      revoke_command: `svc tenants api-keys revoke acme-treasury ${made.id}`,
    });
  });
});

describe('svc tenants api-keys create --idempotency-key K, re-run after the issuer was wound down', () => {
  it('says the key is stopped and why, writes nothing, exit 4', async () => {
    await grant(user(3), 'tenant_admin', null);
    const env = {
      SVC_CONFIG_DIR: tempDir(),
      // A --secret-file's request is recorded there while in flight (SecretFile).
      SVC_STATE_DIR: tempDir(),
      SVC_BASE_URL: sandbox().url,
      SVC_TENANT: TREASURY,
    };
    const run = (file: string) =>
      runInProcess(
        [
          ...['tenants', 'api-keys', 'create', TREASURY, '--kind', 'service_role', '--name', 'job2'],
          ...['--justification', 'reviewer job number two', '--idempotency-key', 'rk-2'],
          ...['--secret-file', file, '--json'],
        ],
        { ...env, SVC_TOKEN: as(user(3)).token },
      );
    const first = await run(join(tempDir(), 'a.key'));
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).id;
    const until = inHours(8);
    await retime(user(3), until);
    const file = join(tempDir(), 'b.key');
    expect(await run(file)).toEqual({
      code: 4,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          code: 'api_key_stopped',
          message:
            `API key ${id} was created by an earlier run with idempotency key rk-2, and the platform refuses it now: ` +
            `${stoppedReason(user(3), until)}; svc neither prints nor writes it`,
          exit_code: 4,
          hint:
            'it is stopped, not revoked: it acts again once its issuer holds its role without an end date; ' +
            `if it is not to, revoke it with: svc tenants api-keys revoke ${TREASURY} ${id} --yes`,
        },
      })}\n`,
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('svc login --with-token over a stored key or token (F9)', () => {
  it('says the replaced key stays valid and how to revoke it; --json says it was forgotten', async () => {
    const made = await issued(user(4));
    const env = await storing(made.key);
    const r = await runInProcess(['login', '--with-token'], env, { stdin: `${as(user(4)).token}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').slice(1)).toEqual([
      `warning: the replaced API key ${made.id} itself stays valid: svc only forgot it; revoke it ${BY}: ` +
        `\`svc tenants api-keys revoke acme-treasury ${made.id}\``,
      '',
    ]);
    const again = await runInProcess(['login', '--with-token', '--json'], env, { stdin: `${made.key}\n` });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).previous_session).toEqual({ outcome: 'forgotten', kind: 'token' });
    expect(again.stderr).toBe(
      'warning: the replaced token stays valid until it expires: svc only forgot it\n',
    );
  });

  it('says nothing when the same key is stored again', async () => {
    const made = await issued(user(5));
    const env = await storing(made.key);
    const r = await runInProcess(['login', '--with-token', '--json'], env, { stdin: `${made.key}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).previous_session).toBeNull();
  });
});

describe('the key’s own words (F7 3, 5)', () => {
  it('svc me names a key by its own name, and whose hold it depends on', async () => {
    const made = await issued(user(6), 'revkey');
    const r = await runInProcess(['me'], { ...(await storing(made.key)), SVC_TOKEN: made.key });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows).toContain(`name\trevkey`);
    expect(rows).toContain(`issued by\t${user(6)}`);
  });

  it('api-keys revoke --json has one shape: outcome "revoked", then "already_revoked"', async () => {
    const made = await issued(user(7));
    const env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sandbox().url, SVC_TOKEN: sandbox().adminToken };
    const revoke = () =>
      runInProcess(['tenants', 'api-keys', 'revoke', TREASURY, made.id, '--yes', '--json'], env);
    const first = await revoke();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ id: made.id, outcome: 'revoked' });
    expect(JSON.parse((await revoke()).stdout)).toMatchObject({ id: made.id, outcome: 'already_revoked' });
  });

  it('roles assign --extend that gives a permanent tenant_admin an end says the user’s keys may stop', async () => {
    await grant(user(8), 'tenant_admin', null);
    const env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sandbox().url, SVC_TENANT: TREASURY };
    const r = await runInProcess(
      [
        ...['roles', 'assign', user(8), 'tenant_admin', '--extend', '--expires-in', '8h'],
        ...['--justification', 'wind the admin down'],
      ],
      { ...env, SVC_TOKEN: sandbox().adminToken },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: this may stop API keys: API keys ${user(8)} issued stop at once while they do not hold the key's role`,
    );
  });

  // Keys (closing note s13): the warning covered the built-in key roles only; the platform's rule
  // is whether the issuer still holds every permission of a key's role without an end date.
  const extend = (userId: string, role: string) =>
    runInProcess(
      [
        ...['roles', 'assign', userId, role, '--extend', '--expires-in', '8h'],
        ...['--justification', 'wind the role down'],
      ],
      {
        SVC_CONFIG_DIR: tempDir(),
        SVC_BASE_URL: sandbox().url,
        SVC_TENANT: TREASURY,
        SVC_TOKEN: sandbox().adminToken,
      },
    );
  const viewerPermissions = async () => {
    const r = await call(sandbox(), 'GET', '/v1/roles/tenant_viewer', admin());
    expect(r.status, r.text).toBe(200);
    return (r.body as { permissions: string[] }).permissions;
  };

  it('--extend of a custom role that holds a key role’s permissions for its issuer warns too', async () => {
    const role = (await customRole('viewer-and-keys', [
      ...(await viewerPermissions()),
      'api_key.manage',
    ])) as {
      id: string;
    };
    await grant(user(9), role.id, null);
    const r = await extend(user(9), role.id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: this may stop API keys: API keys ${user(9)} issued stop at once while they do not hold the key's role`,
    );
  });

  it('--extend of a role whose permissions the user still holds without an end date says nothing of keys', async () => {
    const role = (await customRole('viewer-again', await viewerPermissions())) as { id: string };
    await grant(user(10), 'tenant_admin', null);
    await grant(user(10), role.id, null);
    const r = await extend(user(10), role.id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('API keys');
  });
});

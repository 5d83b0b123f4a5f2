/**
 * `svc tenants api-keys` against a sandbox, in-process: a key that works at once, printed once or
 * written to a 0600 file (never printed), listed without its secret, revoked (exit 3 afterwards),
 * and the usage errors. Was the first half of test/e2e/surface.test.ts (spawned); the key file's
 * mode under umask 000 is checked in a process by test/e2e/file-modes.test.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, requestCount, useLiveAdmin } from '../../helpers/sandbox.js';

const { sandbox, dir, env, svc } = useLiveAdmin();
const tenant = ACME;

describe('svc tenants api-keys', () => {
  it('creates a key that works at once as SVC_TOKEN for svc me', async () => {
    const created = await svc(
      ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--name', 'dash', '--json'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({
      kind: 'publishable',
      name: 'dash',
      tenant_id: tenant,
      warning: expect.any(String),
    });
    const me = await svc(['me', '--json'], { env: { ...env, SVC_TOKEN: key.key } });
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ type: 'api_key', id: key.id, tenant_id: tenant });
  });

  it('prints the key once with a warning, or writes it to a 0600 file without printing it', async () => {
    const shown = await svc(['tenants', 'api-keys', 'create', tenant, '--kind', 'publishable'], { env });
    expect(shown.stdout).toMatch(/^key\tsvc_pk_\S+$/m);
    const shownId = /^id\t(key_\w+)$/m.exec(shown.stdout)![1]!;
    // A ✓ line as its siblings' (attack26a F9): what was made, of which tenant, then the warning.
    expect(shown.stderr).toBe(
      `✓ created publishable API key ${shownId} (Publishable key) of Acme Treasury (acme-treasury)\n` +
        'warning: store this key now: it is shown only once and cannot be retrieved later\n',
    );
    const file = join(dir, '..', 'sync.key');
    const written = await svc(
      [
        'tenants',
        'api-keys',
        'create',
        'acme-treasury',
        '--kind',
        'service_role',
        '--justification',
        'nightly ledger sync',
        '--secret-file',
        file,
      ],
      { env },
    );
    expect(written.code, written.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8');
    // Exactly the key's bytes: `open().read()` in a script sends it as it is.
    expect(key).toMatch(/^svc_sk_[\w-]+$/);
    expect(written.stdout + written.stderr).not.toContain(key);
    const writtenId = /^id\t(key_\w+)$/m.exec(written.stdout)![1]!;
    expect(written.stderr).toBe(
      `✓ created service_role API key ${writtenId} (Service-role key) of Acme Treasury (acme-treasury); its key is in ${file} (mode 0600), not shown again\n`,
    );
    const again = await svc(
      ['tenants', 'api-keys', 'create', tenant, '--kind', 'publishable', '--secret-file', file],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /--secret-file .*sync\.key already exists; svc never overwrites a secret file/,
    );
    const missingDir = await svc(
      [
        'tenants',
        'api-keys',
        'create',
        tenant,
        '--kind',
        'publishable',
        '--secret-file',
        '/nonexistent/dir/k',
      ],
      { env },
    );
    expect(missingDir.stderr).toMatch(
      /cannot create --secret-file \/nonexistent\/dir\/k: its directory does not exist/,
    );
  });

  it.each([
    [
      ['tenants', 'api-keys', 'create', 'acme-treasury'],
      2,
      'error: --kind is required: publishable or service_role\n',
    ],
    [
      ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'service_role', '--show-secret'],
      2,
      'error: a service_role key needs --justification (why it is needed)\n',
    ],
    [
      ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'admin'],
      2,
      "error: option '--kind <kind>' argument 'admin' is invalid. Allowed choices are publishable, service_role; see `svc tenants api-keys create --help`\n",
    ],
    [
      ['tenants', 'api-keys', 'create', 'no-such-tenant', '--kind', 'publishable'],
      5,
      'error: no tenant "no-such-tenant" among your tenants; yours: acme-treasury, acme-payments-eu, acme-ledger-uk, acme-apac, acme-labs (see `svc tenants ls`)\n',
    ],
    [
      ['tenants', 'api-keys', 'revoke', 'acme-treasury', 'key_x'],
      2,
      'error: revoking API key key_x needs confirmation; pass --yes to confirm non-interactively\n',
    ],
  ])('svc %j → exit %i', async (args, code, stderr) => {
    expect(await svc(args, { env })).toEqual({ code, stdout: '', stderr });
  });

  it('lists keys without their secrets and revokes one (exit 3 for it afterwards)', async () => {
    const key = JSON.parse(
      (await svc(['tenants', 'api-keys', 'create', tenant, '--kind', 'publishable', '--json'], { env }))
        .stdout,
    );
    const listed = await svc(['tenants', 'api-keys', 'ls', 'acme-treasury'], { env });
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);
    const revoked = await svc(['tenants', 'api-keys', 'revoke', 'acme-treasury', key.id, '--yes'], { env });
    expect(revoked.stderr).toContain(`revoked API key ${key.id}`);
    expect((await svc(['me'], { env: { ...env, SVC_TOKEN: key.key } })).code).toBe(3);
    // Again: the platform would answer as if it revoked it now; svc says it was revoked before.
    const listedAfter = await svc(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], { env });
    const revokedAt = JSON.parse(listedAfter.stdout).find((k: { id: string }) => k.id === key.id).revoked_at;
    expect(await svc(['tenants', 'api-keys', 'revoke', 'acme-treasury', key.id, '--yes'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: `nothing changed: API key ${key.id} (${key.name}) of Acme Treasury (acme-treasury) was revoked already, at ${revokedAt}\n`,
    });
  });
  it('refuses the key itself where its id belongs, names the id, and sends it nowhere (exit 2)', async () => {
    const key = JSON.parse(
      (
        await svc(
          ['tenants', 'api-keys', 'create', tenant, '--kind', 'publishable', '--name', 'pasted', '--json'],
          {
            env,
          },
        )
      ).stdout,
    );
    const before = await requestCount(sandbox());
    const pasted = await svc(
      ['--debug', 'tenants', 'api-keys', 'revoke', 'acme-treasury', key.key, '--yes'],
      {
        env,
      },
    );
    expect(pasted.code).toBe(2);
    expect(pasted.stderr.split('\n').filter((line) => line.startsWith('error'))).toEqual([
      `error: that is the API key itself, not its id; its id is ${key.id} (prefix ${key.prefix}…): svc tenants api-keys revoke acme-treasury ${key.id}`,
    ]);
    // The tenant and its key list were read (to name the id); the key went into no request.
    const requests = pasted.stderr.split('\n').filter((line) => /^\* [A-Z]+ /.test(line));
    expect(requests.map((line) => line.replace(/http:\/\/[^/]+/, ''))).toEqual([
      '* GET /v1/me',
      `* GET /v1/tenants/${tenant}/api-keys`,
    ]);
    expect(await requestCount(sandbox())).toBe(before + requests.length);
    expect((await svc(['me'], { env: { ...env, SVC_TOKEN: key.key } })).code).toBe(0);
  });

  // Tenants tester, session 10 (findings 1 and 2): what svc says when key management is bounded
  // by the key's authority.
  it('says why a just-in-time tenant_admin cannot issue a key, and issues none', async () => {
    const granted = await svc(
      [
        'roles',
        'assign',
        'usr_reviewer',
        'tenant_admin',
        '--expires-in',
        '30m',
        '--justification',
        'INC-9 short admin',
        '--json',
      ],
      { env },
    );
    expect(granted.code, granted.stderr).toBe(0);
    const until = JSON.parse(granted.stdout).expires_at;
    const jit = { ...env, SVC_TOKEN: sandbox().issueToken('usr_reviewer').token };
    const before = (await svc(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], { env })).stdout;
    const args = [
      'tenants',
      'api-keys',
      'create',
      'acme-treasury',
      '--kind',
      'service_role',
      '--justification',
      'outlive my grant',
      '--show-secret',
    ];
    const refused = await svc(args, { env: jit });
    expect([refused.code, refused.stdout]).toEqual([4, '']);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: a service_role key acts as tenant_admin until it is revoked, and you hold the permissions of tenant_admin only until ${until}; ` +
          'a key cannot outlive your own access: ask someone who holds them without an end date to issue it \\(HTTP 403, insufficient_permission',
      ),
    );
    expect((await svc(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], { env })).stdout).toBe(
      before,
    );
  });

  it('refuses a key manager the revoke of a service-role key it cannot see; the key keeps working', async () => {
    const role = await svc(
      ['roles', 'create', '--name', 'keymgr', '--permission', 'api_key.manage', '--permission', 'role.read'],
      { env },
    );
    expect(role.code, role.stderr).toBe(0);
    await svc(
      ['roles', 'assign', 'usr_viewer', 'keymgr', '--expires-in', '8h', '--justification', 'test keys mgmt'],
      { env },
    );
    const admin = JSON.parse(
      (
        await svc(
          [
            'tenants',
            'api-keys',
            'create',
            'acme-treasury',
            '--kind',
            'service_role',
            '--name',
            'adm-sk',
            '--justification',
            'admin automation key',
            '--show-secret',
            '--json',
          ],
          { env },
        )
      ).stdout,
    );
    const viewer = { ...env, SVC_TOKEN: sandbox().issueToken('usr_viewer').token };
    const listed = await svc(['tenants', 'api-keys', 'ls', 'acme-treasury'], { env: viewer });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(admin.id);
    // What the list leaves out is said, never read as a tenant without such keys (review s10 a, 2).
    const all = JSON.parse(
      (await svc(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], { env })).stdout,
    );
    const seen = JSON.parse(
      (await svc(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], { env: viewer })).stdout,
    );
    const left = all.length - seen.length;
    expect(left).toBeGreaterThan(0);
    expect(listed.stderr).toBe(
      `warning: ${left} more key${left === 1 ? '' : 's'} of Acme Treasury (acme-treasury) not listed: ${left === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold (a service-role key acts as tenant_admin); an administrator who holds them sees ${left === 1 ? 'it' : 'them'}\n`,
    );
    const revoke = await svc(['tenants', 'api-keys', 'revoke', 'acme-treasury', admin.id, '--yes'], {
      env: viewer,
    });
    expect([revoke.code, revoke.stdout]).toEqual([4, '']);
    expect(revoke.stderr).toMatch(
      /^error: a service_role key acts as tenant_admin; you can only revoke keys whose permissions you hold; you lack account\.write, /,
    );
    expect((await svc(['me'], { env: { ...env, SVC_TOKEN: admin.key } })).code).toBe(0);

    // The key itself pasted by a manager who cannot see it (review s10 a, 3): what to give and where
    // to find it, in plain words; the secret goes into no request.
    const pasted = await svc(
      ['--debug', 'tenants', 'api-keys', 'revoke', 'acme-treasury', admin.key, '--yes'],
      { env: viewer },
    );
    expect([pasted.code, pasted.stdout]).toEqual([2, '']);
    expect(
      pasted.stderr
        .split('\n')
        .filter((line) => line.startsWith('error'))
        .join('\n'),
    ).toBe(
      "error: that is the API key itself, not its id; give the key's id (key_…) instead, as `svc tenants api-keys ls acme-treasury` shows it: " +
        `this key is not among the keys you may manage there (${left} more ${left === 1 ? 'is' : 'are'} not listed to you: ${left === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold); ` +
        'svc did not send the secret (in a URL it would stay in proxy and server logs)',
    );
    const requests = pasted.stderr.split('\n').filter((line) => /^\* [A-Z]+ /.test(line));
    expect(requests.map((line) => line.replace(/http:\/\/[^/]+/, ''))).toEqual([
      '* GET /v1/me',
      `* GET /v1/tenants/${tenant}/api-keys`,
    ]);
    expect((await svc(['me'], { env: { ...env, SVC_TOKEN: admin.key } })).code).toBe(0);
  });
});

/**
 * attack21b F7: an invisible character a paste adds (U+200B, a soft hyphen, a byte-order mark) was
 * refused and escaped in positional ids and grant-file rows only: `--tenant`, `SVC_TENANT`,
 * `users ls --id`, `audit ls --user`, `-p` and an access file's ids reached the terminal raw, so the
 * error read "no tenant "acme-apac" … (did you mean acme-apac?)". Each is now refused before any
 * request, with invisibleIn's words and the character escaped.
 */
import { describe, expect, it } from 'vitest';
import { writeFile } from '../helpers/ascode.js';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const Z = '\u200b';
const words = (what: string, shown: string, at: number, name = 'U+200B ZERO WIDTH SPACE') =>
  `${what} "${shown}" holds an invisible character (${name}) at ${at}: type the id again, or delete that character`;

describe('an id with an invisible character, given by a flag, a setting or an access file', () => {
  it.each([
    ['--tenant', ['--tenant', `acme${Z}-apac`, 'roles', 'ls'], {}, words('--tenant', 'acme\\u200b-apac', 5)],
    [
      'SVC_TENANT',
      ['roles', 'ls'],
      { SVC_TENANT: `acme-apac\ufeff` },
      words('SVC_TENANT', 'acme-apac\\ufeff', 10, 'U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte-order mark)'),
    ],
    ['users ls --id', ['users', 'ls', '--id', `usr_${Z}lead`], {}, words('--id', 'usr_\\u200blead', 5)],
    ['audit ls --user', ['audit', 'ls', '--user', `usr_${Z}lead`], {}, words('--user', 'usr_\\u200blead', 5)],
    [
      'audit ls --actor',
      ['audit', 'ls', '--actor', `usr\u00ad_lead`],
      {},
      words('--actor', 'usr\\u00ad_lead', 4, 'U+00AD SOFT HYPHEN'),
    ],
  ])('%s is refused with the character escaped; nothing is sent', async (_name, argv, env, message) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(argv, { env });
    expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([2, '', `error: ${message}`]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('-p naming a profile with an invisible character is refused with it escaped', async () => {
    const made = await svc.run(['-p', 'sandbox', 'config', 'set', 'tenant', 'acme-apac']);
    expect(made.code, made.stderr).toBe(0);
    const before = await requestCount(svc.sandbox());
    // No SVC_BASE_URL: the profile is what says where to go, so it must exist.
    const r = await svc.run(['-p', `sand${Z}box`, 'roles', 'ls'], { env: { SVC_BASE_URL: undefined } });
    expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      `error: ${words('profile name', 'sand\\u200bbox', 5)}`,
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it("an access file's user, tenant and role ids are refused at their lines, escaped", async () => {
    const path = writeFile(
      tempDir('svc-zw-'),
      'zw.yaml',
      `version: 1\nblocks:\n  - tenants: [acme-apac, "acme${Z}-labs"]\n    grants:\n      - justification: zw\n        expires_in: 8h\n        users: [usr_${Z}lead]\n        role: tenant${Z}_analyst\n`,
    );
    const r = await svc.run(['plan', '-f', path], { env: { SVC_TENANT: '' } });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      `${path}:3: ${words('tenant', 'acme\\u200b-labs', 5)}`,
      `${path}:7: ${words('user', 'usr_\\u200blead', 5)}`,
    ]);
    const single = writeFile(
      tempDir('svc-zw-'),
      'role.yaml',
      `version: 1\nblocks:\n  - tenants: acme-apac\n    grants:\n      - justification: zw\n        expires_in: 8h\n        users: [usr_lead]\n        role: tenant${Z}_analyst\n`,
    );
    const role = await svc.run(['plan', '-f', single], { env: { SVC_TENANT: '' } });
    expect([role.code, role.stderr.split('\n')[0]]).toEqual([
      2,
      `${single}:5: ${words('role', 'tenant\\u200b_analyst', 7)}`,
    ]);
  });
});

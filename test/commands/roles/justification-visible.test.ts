// A justification that shows nothing (U+200B, a braille blank, a soft hyphen, an escape sequence)
// is refused as a blank one is, by flag and in a file, before anything is sent (attack27a F2).
import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner, bulkUser, held } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);

const CASES: [string, string][] = [
  ['\u200b', 'U+200B'],
  ['\u200b\u200b', 'U+200B'],
  ['\u2800', 'U+2800'],
  ['\u00ad', 'U+00AD'],
  ['\u001b[0m', 'a terminal escape sequence'],
  ['\u3164\u200b\u2800\u00ad', 'U+3164, U+200B, U+2800 …'],
];

describe('a justification of only invisible characters', () => {
  it.each(CASES)('roles assign --justification %j: exit 2, nothing sent', async (text, what) => {
    const before = await held(sandbox(), bulkUser(1));
    const result = await svc.run([
      'roles',
      'assign',
      bulkUser(1),
      'tenant_viewer',
      '--expires-in',
      '1h',
      '--justification',
      text,
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: --justification must say why: it holds only invisible characters (${what}); write the reason in words; nothing was sent\n`,
    );
    expect(await held(sandbox(), bulkUser(1))).toEqual(before);
  });

  it.each(CASES)(
    'a grant file row with justification %j: refused on its line, exit 2',
    async (text, what) => {
      const path = svc.file(
        'j.csv',
        `user,role,expires_in,justification\n${bulkUser(2)},tenant_viewer,1h,${text}\n`,
      );
      const result = await svc.run(['roles', 'assign', '--file', path, '--dry-run']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `${path}:2: justification must say why: it holds only invisible characters (${what})\n` +
          `error: 1 line of ${path} has problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n`,
      );
    },
  );

  it.each(CASES)('svc apply -f with justification %j: refused on its line, exit 2', async (text, what) => {
    const before = await held(sandbox(), bulkUser(2));
    const grant = `{ user: ${bulkUser(2)}, role: tenant_viewer, expires_in: 1h, justification: ${JSON.stringify(text)} }`;
    const path = svc.file(
      'access.yaml',
      `version: 1\nblocks:\n  - tenants: ${ACME}\n    grants:\n      - ${grant}\n`,
    );
    const result = await svc.run(['apply', '-f', path, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `${path}:5: "justification" must say why: it holds only invisible characters (${what}); write the reason in words\n` +
        `error: 1 problem in ${path}; nothing was compared or changed; fix them and run the command again\n`,
    );
    expect(await held(sandbox(), bulkUser(2))).toEqual(before);
  });

  it('tenants api-keys create: ten U+200B are not ten characters of reason', async () => {
    const result = await svc.run([
      'tenants',
      'api-keys',
      'create',
      ACME,
      '--kind',
      'service_role',
      '--name',
      'k',
      '--justification',
      '\u200b'.repeat(10),
      '--show-secret',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --justification must say why: it holds only invisible characters (U+200B); write the reason in words; nothing was sent\n',
    );
  });

  it('a reason with visible words around an escape sequence is taken', async () => {
    const result = await svc.run([
      'roles',
      'assign',
      bulkUser(1),
      'tenant_viewer',
      '--expires-in',
      '1h',
      '--justification',
      '\u001b[1mquarter close\u001b[0m',
    ]);
    expect(result.code, result.stderr).toBe(0);
  });
});

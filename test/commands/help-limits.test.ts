/** Limits a flag's value must respect are in its help, so no one learns them from an error. */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

describe('limits shown in help', () => {
  it.each([
    [
      ['tenants', 'api-keys', 'create', '--help'],
      'why a service-role key is needed: required for service_role, 10 to 500 characters',
    ],
    [['tenants', 'api-keys', 'create', '--help'], 'a name to recognise the key by (up to 100 characters)'],
    [['roles', 'assign', '--help'], 'why the role is granted, up to 1000 characters'],
  ])('svc %j says %s', async (argv, text) => {
    const r = await runInProcess(argv, {}, { columns: 200 });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(text);
  });

  it('and the flag is checked against them before any request', async () => {
    const r = await runInProcess(
      [
        'tenants',
        'api-keys',
        'create',
        'acme-treasury',
        '--kind',
        'service_role',
        '--justification',
        'x'.repeat(501),
      ],
      {},
    );
    expect([r.code, r.stderr]).toEqual([2, 'error: --justification is longer than 500 characters\n']);
  });
});

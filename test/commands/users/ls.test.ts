import { describe, expect, it } from 'vitest';
import { parseUsersLs, runUsersLs } from '../../../src/commands/users/ls.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc users ls: GET /v1/users as a verb (every operation of the document has one).
const svc = useSandboxContext();

describe('svc users ls', () => {
  it('lists the members of the organisation by id, piped as TSV', async () => {
    const { ctx, stdout, stderr } = svc.context();
    await runUsersLs(ctx, parseUsersLs({ limit: '3' }));
    expect(stdout()).toBe(
      [
        'usr_admin\tAda Admin\tada@acme.example',
        'usr_ai_prompter\tAi prompter User\tai.prompter@acme.example',
        'usr_analyst\tAnalyst User\tanalyst@acme.example',
        '',
      ].join('\n'),
    );
    expect(stderr()).toMatch(/^3 shown; more with: svc users ls --cursor [\w-]+ {2}\(or --all\)\n$/);
  });

  it('looks up ids: the ones that exist are listed, the rest counted on stderr', async () => {
    const r = await svc.run(
      ['users', 'ls', '--id', 'usr_analyst', '--id', 'usr_bruce', '--id', 'usr_nobody'],
      {
        tty: { stdout: true, stderr: true },
        columns: 100,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      ['ID           NAME          EMAIL', 'usr_analyst  Analyst User  analyst@acme.example', ''].join('\n'),
    );
    // usr_bruce is a user of another organisation: as absent as an id that does not exist.
    expect(r.stderr).toBe('warning: 2 of 3 ids are not users of the tenant: usr_bruce, usr_nobody\n');
    const json = await svc.run(['users', 'ls', '--id', 'usr_analyst', '--id', 'usr_bruce', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: 'usr_analyst', name: 'Analyst User', email: 'analyst@acme.example' },
    ]);
    expect(json.stderr).toBe('warning: 1 of 2 ids are not users of the tenant: usr_bruce\n');
  });

  it.each([
    ['--ndjson', ['--ndjson']],
    ['a pipe', []],
  ])('names a few missing ids and counts the rest (%s); stdout keeps its shape', async (_, mode) => {
    const missing = Array.from({ length: 8 }, (_, i) => `usr_gone_${i}`);
    const r = await svc.run([
      'users',
      'ls',
      '--id',
      'usr_lead',
      ...missing.flatMap((id) => ['--id', id]),
      ...mode,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      mode.length > 0
        ? '{"id":"usr_lead","name":"Lead User","email":"lead@acme.example"}\n'
        : 'usr_lead\tLead User\tlead@acme.example\n',
    );
    expect(r.stderr).toBe(
      'warning: 8 of 9 ids are not users of the tenant: usr_gone_0, usr_gone_1, usr_gone_2, usr_gone_3, usr_gone_4 and 3 more\n',
    );
  });

  it('says nothing about ids a --limit cut off before they could be listed', async () => {
    const r = await svc.run(['users', 'ls', '--id', 'usr_admin', '--id', 'usr_analyst', '--limit', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('usr_admin\tAda Admin\tada@acme.example\n');
    expect(r.stderr).not.toContain('not users');
  });

  it.each([
    ['an empty id', ['--id', ''], 'error: --id must not be empty'],
    ['--id with --cursor', ['--id', 'usr_a', '--cursor', 'x'], 'error: use --id or --cursor, not both'],
    [
      '101 ids',
      Array.from({ length: 101 }, (_, i) => ['--id', `usr_${i}`]).flat(),
      'error: --id names 101 users; at most 100 at once; split the list, or list every user with --all and filter it',
    ],
  ])('refuses %s with a usage error (exit 2)', async (_, args, message) => {
    const r = await svc.run(['users', 'ls', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${message}\n`);
    expect(r.stdout).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

// attack20 F10: `roles assign/revoke --file -` and `plan/apply -f -` with standard input on a
// terminal waited without a word (a `--file -` typed without its pipe looked hung). They still
// read what is typed or pasted, and first say on stderr what they read and how to end it, in the
// words `login --with-token` uses for what it reads.

const svc = useSandboxContext();
const END = process.platform === 'win32' ? 'Ctrl-Z and Enter' : 'Ctrl-D';

describe('standard input on a terminal', () => {
  it.each([
    [
      ['roles', 'assign', '--file', '-', '--dry-run'],
      'user,role,expires_in,justification\nusr_viewer,tenant_analyst,8h,t\n',
      `--file - reads the rows from standard input, which is this terminal: paste them, then press ${END} on an empty line (or pipe them in: \`svc roles assign --file - < grants.csv\`)`,
    ],
    [
      ['roles', 'revoke', '--file', '-', '--dry-run'],
      'user,role\nusr_viewer,tenant_analyst\n',
      `--file - reads the rows from standard input, which is this terminal: paste them, then press ${END} on an empty line (or pipe them in: \`svc roles revoke --file - < grants.csv\`)`,
    ],
    [
      ['plan', '-f', '-'],
      'version: 1\nblocks:\n  - tenants: acme-treasury\n',
      `-f - reads the access file from standard input, which is this terminal: paste it, then press ${END} on an empty line (or pipe it in: \`svc plan -f - < access.yaml\`)`,
    ],
    [
      ['apply', '-f', '-', '--yes'],
      'version: 1\nblocks:\n  - tenants: acme-treasury\n',
      `-f - reads the access file from standard input, which is this terminal: paste it, then press ${END} on an empty line (or pipe it in: \`svc apply -f - < access.yaml\`)`,
    ],
    [
      ['records', 'create', 'exceptions', '--data-file', '-'],
      '{"title":"typed"}\n',
      `--data-file - reads the record as JSON from standard input, which is this terminal: paste it, then press ${END} on an empty line`,
    ],
    [
      ['api', 'POST', '/v1/roles', '--input', '-'],
      '{"name":"typed-role","permissions":["exception.read"]}\n',
      `--input - reads the body from standard input, which is this terminal: paste it, then press ${END} on an empty line`,
    ],
  ])('svc %j says what it reads and how to end it, then reads it', async (argv, typed, said) => {
    const r = await svc.run(argv, { tty: { stdin: true }, stdin: typed });
    expect(r.stderr.split('\n')[0]).toBe(said);
    expect(r.stderr).not.toContain('error:');
  });

  it('a pipe is read without the line', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--dry-run'], {
      stdin: 'user,role\nusr_viewer,tenant_analyst\n',
    });
    expect(r.stderr).not.toContain('standard input');
  });

  // review20c F8: the question after a pasted input read the same, ended input: cancelled at
  // once (and exit 0). Refused before anything is read, unless --yes confirms up front.
  it.each([
    [
      ['roles', 'revoke', '--file', '-'],
      'user,role\nusr_viewer,tenant_analyst\n',
      "error: --file - reads the rows from standard input, which is this terminal, so the confirmation asked after them could not be answered (the terminal's input ends with them); nothing was read; pass --yes to confirm the revocation up front, or pipe them in: `svc roles revoke --file - < grants.csv`\n",
    ],
    [
      ['apply', '-f', '-'],
      'version: 1\nblocks:\n  - tenants: acme-treasury\n',
      "error: -f - reads the access file from standard input, which is this terminal, so the confirmation asked after it could not be answered (the terminal's input ends with it); nothing was read; pass --yes to confirm the changes up front, or pipe it in: `svc apply -f - < access.yaml`\n",
    ],
  ])(
    'svc %j, which asks after reading, is refused on a terminal without --yes, before reading',
    async (argv, typed, said) => {
      const r = await svc.run(argv, {
        tty: { stdin: true, stdout: true, stderr: true },
        stdin: typed,
        answers: [true],
      });
      expect([r.code, r.stderr]).toEqual([2, said]);
    },
  );

  it('roles revoke --file - --yes on a terminal reads what is pasted and revokes it', async () => {
    await svc.run([
      'roles',
      'assign',
      'usr_viewer',
      'tenant_analyst',
      '--expires-in',
      '1h',
      '--justification',
      't',
    ]);
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      tty: { stdin: true, stdout: true, stderr: true },
      stdin: 'user,role\nusr_viewer,tenant_analyst\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toContain('paste them, then press');
  });

  it('login --with-token on a terminal is refused in the same words', async () => {
    const r = await svc.run(['login', '--with-token'], { tty: { stdin: true }, stdin: '' });
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: --with-token reads the token from standard input, which is this terminal; pipe it in: `svc login --with-token < token.txt` or `printenv MY_TOKEN | svc login --with-token`\n',
    ]);
  });
});

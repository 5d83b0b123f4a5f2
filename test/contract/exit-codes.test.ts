import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

// Exit codes agree with the contract everywhere (issue 13): one table across commands, each row
// run in-process against a sandbox.
const svc = useSandboxContext();

type Row = [what: string, argv: string[], code: number, env?: Record<string, string | undefined>];

const rows: Row[] = [
  ['help asked for: svc help', ['help'], 0],
  ['help asked for: svc help roles', ['help', 'roles'], 0],
  ['help asked for: svc help webhooks dlq', ['help', 'webhooks'], 0],
  ['help asked for: svc roles --help', ['roles', '--help'], 0],
  ['a group without its verb', ['roles'], 2],
  ['an unknown command', ['rolez'], 2],
  ['an unknown flag', ['roles', 'ls', '--nope'], 2],
  ['an unknown profile (-p)', ['-p', 'nope', 'me'], 5, { SVC_BASE_URL: undefined }],
  ['an unknown profile (SVC_PROFILE)', ['me'], 5, { SVC_PROFILE: 'nope', SVC_BASE_URL: undefined }],
  ['an unknown profile: profiles use', ['profiles', 'use', 'nope'], 5],
  ['an unknown profile: profiles show', ['profiles', 'show', 'nope'], 5],
  // a key that is no setting is invalid input, like a bad flag (a known key not set is 5)
  ['an unknown config key: get', ['config', 'get', 'nope'], 2],
  ['an unknown config key: set', ['config', 'set', 'nope', 'x'], 2],
  ['an unknown config key: unset', ['config', 'unset', 'nope'], 2],
  ['a config key that is not set', ['config', 'get', 'org'], 5],
  ['an unknown tenant slug', ['--tenant', 'nope', 'roles', 'ls'], 5],
  ['an unknown role', ['roles', 'get', 'no-such-role'], 5],
  ['an unknown webhook', ['webhooks', 'get', 'wh_nope'], 5],
  ['an unknown OAuth client', ['oauth', 'get', 'cli_nope'], 5],
  ['an unknown audit entry', ['audit', 'get', 'aud_nope'], 5],
  ['no credential', ['me'], 3, { SVC_TOKEN: undefined }],
  ['a rejected credential', ['me'], 3, { SVC_TOKEN: 'not-a-token' }],
  [
    'a validation error from the server',
    ['roles', 'create', '--name', 'x-y', '--permission', 'exception.reed'],
    2,
  ],
  [
    'a re-grant of a held role (already_assigned)',
    ['roles', 'assign', 'usr_viewer', 'tenant_viewer', '--expires-in', 'never', '--justification', 'again'],
    0,
  ],
  ['a destructive action without --yes in a script', ['roles', 'delete', 'nothing-here'], 5],
  ['a delete without --yes in a script', ['webhooks', 'delete', 'wh_0469c93f8ec9ac200ad15e37'], 2],
  [
    'a usage error before any request',
    ['oauth', 'create', '--name', 'x', '--redirect-uri', 'https://x.example/cb'],
    2,
  ],
];

describe('exit codes across commands', () => {
  it.each(rows)('%s: svc %j → %i', async (_what, argv, code, env) => {
    const r = await svc.run(argv, env ? { env } : {});
    expect(r.code, r.stderr).toBe(code);
    if (code >= 2) expect(r.stderr).toMatch(/^error: /m);
  });

  it('refuses what the caller may not do with 4', async () => {
    const token = svc.sandbox().issueToken('usr_viewer').token;
    const r = await svc.run(['oauth', 'ls'], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(4);
  });

  it('a No at a confirmation is 2, nothing changed, and the help that offers --yes says so', async () => {
    await svc.run(['roles', 'create', '--name', 'kept', '--permission', 'exception.read']);
    const no = await svc.run(['roles', 'delete', 'kept'], { tty: true, answers: [false] });
    expect([no.code, no.stderr]).toEqual([2, 'error: cancelled; nothing was changed\n']);
    expect((await svc.run(['roles', 'get', 'kept'])).code).toBe(0);
    const help = await svc.run(['roles', 'delete', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      ' -y, --yes confirm destructive actions without asking (a No at the question exits 2, nothing changed) ',
    );
  });

  it('a conflict is 6', async () => {
    await svc.run(['roles', 'create', '--name', 'twice', '--permission', 'exception.read']);
    const r = await svc.run(['roles', 'create', '--name', 'twice', '--permission', 'exception.read']);
    expect(r.code).toBe(6);
  });
});

import { describe, expect, it } from 'vitest';
import { parseAuditLs, runAuditLs } from '../../../src/commands/audit/ls.js';
import { codeTokens, createClient } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc audit ls | get (issue 13): the trail every grant's audit_trail_id points into.
const svc = useSandboxContext();
const live = { now: Date.now() };
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

async function grant(user: string, role: string, why: string) {
  const r = await svc.run(
    ['roles', 'assign', user, role, '--expires-in', '2h', '--justification', why, '--json'],
    live,
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { audit_trail_id: string; expires_at: string };
}

describe('svc audit', () => {
  it('lists newest first, with filters; get shows one entry', async () => {
    const first = await grant('usr_viewer', 'tenant_auditor', 'SOX walkthrough');
    await svc.run(['roles', 'revoke', 'usr_viewer', 'tenant_auditor', '--yes']);
    const second = await grant('usr_analyst', 'tenant_compliance', 'quarter close');

    // The changes made here: the seed's own grants have entries too (actor "system").
    const { ctx, stdout, stderr } = svc.context();
    await runAuditLs(ctx, parseAuditLs({ actor: 'usr_admin' }));
    expect(stderr()).toBe('');
    const rows = stdout()
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r[2])).toEqual(['role.assigned', 'role.revoked', 'role.assigned']);
    expect(rows[0]).toEqual([
      second.audit_trail_id,
      expect.stringMatching(new RegExp(`^${TIME}$`)),
      'role.assigned',
      'usr_admin',
      `tenant_compliance granted to usr_analyst until ${second.expires_at}`,
      'quarter close',
      expect.stringMatching(/^req_/),
      // The client column: empty for a change made with a JWT.
      '',
      // The change column, last: a grant records no values.
      '',
    ]);

    const viewer = await svc.run([
      ...['audit', 'ls', '--user', 'usr_viewer', '--actor', 'usr_admin', '--oldest-first', '--json'],
    ]);
    expect(JSON.parse(viewer.stdout).map((e: { action: string }) => e.action)).toEqual([
      'role.assigned',
      'role.revoked',
    ]);
    const revocations = await svc.run(['audit', 'ls', '--action', 'role.revoked', '--ndjson']);
    expect(revocations.stdout.trimEnd().split('\n')).toHaveLength(1);
    const byRole = await svc.run([
      'audit',
      'ls',
      '--role',
      'tenant_compliance',
      '--actor',
      'usr_admin',
      '--json',
    ]);
    expect(JSON.parse(byRole.stdout).map((e: { id: string }) => e.id)).toEqual([second.audit_trail_id]);
    const one = await svc.run(['audit', 'get', first.audit_trail_id]);
    expect(one.stdout).toMatch(
      new RegExp(
        `^id\\t${first.audit_trail_id}\\nat\\t${TIME}\\naction\\trole\\.assigned\\nactor\\tusr_admin\\nvia OAuth client\\t\\n` +
          `summary\\ttenant_auditor granted to usr_viewer until ${first.expires_at}\\ntarget\\tuser usr_viewer\\n` +
          `user\\tusr_viewer\\nrole\\ttenant_auditor\\nexpires\\t${first.expires_at}\\nprevious expiry\\t\\n` +
          'justification\\tSOX walkthrough\\nchanged fields\\t\\nchange\\t\\nrequest\\treq_\\w+\\n$',
      ),
    );
  });

  it('--limit is a total; the hint continues exactly there, with the filters as instants', async () => {
    // Six entries about usr_lead, each a second apart on the sandbox's clock.
    for (const why of ['one', 'two', 'three']) {
      await grant('usr_lead', 'tenant_auditor', why);
      await svc.run(['roles', 'revoke', 'usr_lead', 'tenant_auditor', '--yes'], live);
    }
    const every = await svc.run(['audit', 'ls', '--user', 'usr_lead', '--since', '2h', '--json'], live);
    const ids = (JSON.parse(every.stdout) as Array<{ id: string }>).map((e) => e.id);
    expect(ids).toHaveLength(6);

    // On a terminal: four rows (and the header), then where to continue, on stderr.
    const first = await svc.run(['audit', 'ls', '--user', 'usr_lead', '--since', '2h', '--limit', '4'], {
      tty: { stdout: true },
      columns: 200,
      ...live,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trimEnd().split('\n')).toHaveLength(5);
    const since = new Date(Math.floor((live.now - 2 * 3_600_000) / 1000) * 1000)
      .toISOString()
      .replace('.000', '');
    const hint = new RegExp(
      `^4 shown; more with: svc audit ls --user usr_lead --since ${since} --cursor (\\S+) {2}\\(or --all\\)\\n$`,
    );
    expect(first.stderr).toMatch(hint);

    // The printed command, run an hour later (2h would now mean another instant), gives the other two.
    const continued = first.stderr.slice('4 shown; more with: svc '.length, -'  (or --all)\n'.length);
    const rest = await svc.run([...continued.split(' '), '--json'], { now: live.now + 3_600_000 });
    expect(rest.stderr).toBe('');
    expect((JSON.parse(rest.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(ids.slice(4));

    // --all with --limit: at most that many in total, in pages; the hint needs no --all then.
    const some = await svc.run([
      'audit',
      'ls',
      '--actor',
      'usr_admin',
      '--user',
      'usr_lead',
      '--all',
      '--limit',
      '5',
      '--oldest-first',
    ]);
    expect(
      some.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(ids.slice(1).reverse());
    expect(some.stderr).toMatch(
      /^5 shown; more with: svc audit ls --actor usr_admin --user usr_lead --oldest-first --cursor \S+\n$/,
    );

    // A cursor is bound to its filters: with others it is refused, and nothing is printed.
    const cursor = (hint.exec(first.stderr) as RegExpExecArray)[1] as string;
    const other = await svc.run(['audit', 'ls', '--user', 'usr_viewer', '--cursor', cursor]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(
      /^error: the cursor was issued for different filters; repeat the same filters/,
    );
  });

  it.each([
    [
      ['audit', 'ls', '--action', 'Role Assigned'],
      2,
      'error: --action "Role Assigned" is not an action (role.assigned) or a family (role)\n',
    ],
    [['audit', 'ls', '--since', 'yesterday'], 2, /^error: --since takes an ISO 8601 time/],
    // One time parser for every time flag: a time without a zone is refused as --expires-at refuses it.
    [
      ['audit', 'ls', '--since', '2026-11-24T14:30:00'],
      2,
      'error: --since "2026-11-24T14:30:00" is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)\n',
    ],
    [
      ['audit', 'ls', '--until', '2026-02-30T00:00:00Z'],
      2,
      'error: --until "2026-02-30T00:00:00Z" is not a date: February has 28 days\n',
    ],
    [
      ['audit', 'ls', '--since', '1M'],
      2,
      'error: --since "1M": M is not a unit; write 1m for minutes (months are not a unit: use days, e.g. 30d, or a date)\n',
    ],
    [
      ['audit', 'ls', '--since', '2026-01-15T11:00:00Z', '--until', '2026-01-15T10:00:00Z'],
      2,
      'error: --since (2026-01-15T11:00:00Z) must be before --until (2026-01-15T10:00:00Z)\n',
    ],
    [['audit', 'ls', '--limit', '0'], 2, /^error: --limit /],
    [
      ['audit', 'ls', '--cursor', 'not-a-cursor'],
      2,
      /^error: the cursor is not one this API issued \[cursor: is malformed\] \(HTTP 400/,
    ],
    [
      ['audit', 'ls', '--action', 'role.asigned'],
      2,
      /^error: unknown action role\.asigned \(did you mean role\.assigned\?\) \[action: is not one of role\.assigned, .*\] \(HTTP 400/,
    ],
    [['audit', 'ls', '--role', 'no-such-role'], 5, /^error: no role "no-such-role" in this tenant/],
    [['audit', 'get', 'aud_missing'], 5, /^error: audit_trail record aud_missing not found \(HTTP 404/],
  ])('%j exits %i', async (argv, code, stderr) => {
    const r = await svc.run(argv as string[]);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });

  it('--user with an id that is no user of the tenant: still exit 0 (a deleted user has history), with a note', async () => {
    const typo = await svc.run(['audit', 'ls', '--user', 'usr_analst']);
    expect(typo).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: no entries, and usr_analst is not a user of this tenant; see `svc users ls` for the users of the tenant (`svc users ls --id ID` checks an id)\n',
    });
    // A user of the tenant with no entries in the window: nothing to say but the empty answer.
    const quiet = await svc.run(['audit', 'ls', '--user', 'usr_lead', '--until', '2001-01-01T00:00:00Z']);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a change made through an OAuth client names it in a column of its own, last (isolation12 f1, review-c f2)', async () => {
    const client = await createClient(svc.sandbox(), { scopes: ['admin'] });
    const tokens = await codeTokens(svc.sandbox(), client, {
      scope: 'admin',
    });
    const role = await svc.run(
      ['roles', 'create', '--name', 'vendor-readers', '--permission', 'exception.read', '--json'],
      {
        env: { SVC_TOKEN: tokens.body.access_token },
      },
    );
    expect(role.code, role.stderr).toBe(0);
    // In a pipe a cell holds one value: the actor alone (scripts filter on it), the client in a
    // column of its own, after every earlier one, so the columns before it stay where they were
    // (review-c f2); only the change column (escalate13 F4) comes after it.
    const listed = await svc.run(['audit', 'ls', '--action', 'role.created', '--limit', '1']);
    const cells = listed.stdout.trimEnd().split('\t');
    expect([cells[3], cells.length, cells[7], cells[8]]).toEqual([
      'usr_admin',
      9,
      client.client_id,
      'name "vendor-readers"; description ""; permissions +exception.read',
    ]);
    const table = await svc.run(['audit', 'ls', '--action', 'role.created', '--limit', '1'], {
      tty: true,
      columns: 200,
    });
    expect(table.stdout).toMatch(/ ACTOR +SUMMARY .* CLIENT +CHANGE\n/);
    expect(table.stdout).toMatch(
      new RegExp(` usr_admin +custom role .* ${client.client_id} +name "vendor-readers"`),
    );
    const id = cells[0]!;
    const one = await svc.run(['audit', 'get', id]);
    expect(one.stdout).toContain(`\nactor\tusr_admin\nvia OAuth client\t${client.client_id}\n`);
  });

  it('is refused to a caller without audit_trail.read (exit 4)', async () => {
    const token = svc.sandbox().issueToken('usr_analyst').token;
    const r = await svc.run(['audit', 'ls'], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/needs permission audit_trail\.read/);
  });
});

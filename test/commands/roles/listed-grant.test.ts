/**
 * A revoke row that lists its grant (`audit_trail_id`: a result row of `roles assign --file
 * --ndjson`, a listing's row) revokes that grant only (review20c F1, review20d D1). The result rows
 * of a grant run in acme-labs, piped to a revoke with its --tenant forgotten, named the user's
 * grant in Acme Treasury — another grant, another audit trail id — and it was revoked, ✓. A row
 * whose grant is not the one held now is refused, in the dry run and the real run alike.
 */
import { describe, expect, it } from 'vitest';
import { assignArgv, assignments, bulkRunner, bulkUser, held } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
const auditorHeld = async (user: string) =>
  (await held(sandbox(), user)).filter((a) => a.role_id === 'tenant_auditor');

/** The words of a row refused for another grant than its own. */
const another = (user: string, listed: string, now: string) =>
  `${user} holds tenant_auditor under another grant than the one listed (the row's audit trail ${listed}, the grant held now ${now}: made since, or the row is of another tenant); not revoked: to revoke the grant held now, drop audit_trail_id from the row; to revoke the listed one, run in its tenant (--tenant)`;

describe('a revoke row listing another grant than the one held now', () => {
  it('the result rows of a grant in acme-labs, piped to a revoke in Acme Treasury: refused (dry run too), exit 7, still held', async () => {
    const user = bulkUser(9);
    expect((await svc.run(assignArgv(user, 'tenant_auditor', '--yes'))).code).toBe(0);
    const [mine] = await auditorHeld(user);
    const file = svc.file('d1-labs.csv', `user,role\n${user},tenant_auditor\n`);
    const labs = await svc.run([
      ...['roles', 'assign', '--file', file, '--tenant', 'acme-labs'],
      ...['--expires-in', '1d', '--justification', 'CHG-1 labs', '--yes', '--ndjson'],
    ]);
    expect(labs.code, labs.stderr).toBe(0);
    const [row] = ndjson(labs.stdout);
    expect(row.status).toBe('ok');
    // Its tenant_id dropped (as the refusal of another tenant's row says to, to revoke in this
    // one; or a row written by svc before result rows named their tenant): the grant it lists is
    // still another than the one held here.
    const { tenant_id: _tenant, ...untenanted } = row;
    const stdin = `${JSON.stringify(untenanted)}\n`;

    const dry = await svc.run(['roles', 'revoke', '--file', '-', '--dry-run', '--ndjson'], { stdin });
    expect(dry.code, dry.stderr).not.toBe(0);
    expect(ndjson(dry.stdout).map((r) => [r.plan, r.error?.code, r.error?.message])).toEqual([
      ['fail', 'another_grant', another(user, row.audit_trail_id, mine!.audit_trail_id)],
    ]);

    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--ndjson'], { stdin });
    expect(r.code, r.stderr).toBe(7);
    expect(ndjson(r.stdout).map((x) => [x.status, x.error?.code, x.error?.message])).toEqual([
      ['failed', 'another_grant', another(user, row.audit_trail_id, mine!.audit_trail_id)],
    ]);
    expect(r.stderr).not.toContain('✓');
    expect(await auditorHeld(user)).toHaveLength(1);
  });

  it('a row of a grant revoked and made anew since: refused; the listing of the grant held now: revoked', async () => {
    const user = bulkUser(10);
    const first = await svc.run([...assignArgv(user, 'tenant_auditor', '--yes'), '--json']);
    expect(first.code, first.stderr).toBe(0);
    const old = JSON.parse(first.stdout);
    expect((await svc.run(['roles', 'revoke', user, 'tenant_auditor', '--yes'])).code).toBe(0);
    expect((await svc.run(assignArgv(user, 'tenant_auditor', '--yes'))).code).toBe(0);
    const [now] = await auditorHeld(user);
    expect(now!.audit_trail_id).not.toBe(old.audit_trail_id);

    const stale = `${JSON.stringify({ user_id: user, role_id: 'tenant_auditor', audit_trail_id: old.audit_trail_id })}\n`;
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--ndjson'], { stdin: stale });
    expect(r.code, r.stderr).toBe(7);
    expect(ndjson(r.stdout)[0].error.message).toBe(another(user, old.audit_trail_id, now!.audit_trail_id));
    expect(await auditorHeld(user)).toHaveLength(1);

    const listing = await svc.run(['roles', 'assignments', user, '--ndjson']);
    const rows = ndjson(listing.stdout).filter((a) => a.role_id === 'tenant_auditor');
    const done = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: rows.map((a) => JSON.stringify(a)).join('\n'),
    });
    expect(done.code, done.stderr).toBe(0);
    expect(await auditorHeld(user)).toHaveLength(0);
    expect((await assignments(sandbox(), 'tenant_auditor')).active).toBeGreaterThanOrEqual(0);
  });

  it('the undo of an --extend run: its result rows are extensions of the grant held now, refused as such (dry run too), still held', async () => {
    const user = bulkUser(8);
    const file = (name: string, expires: string) =>
      svc.file(name, `user,role,expires_in,justification\n${user},tenant_auditor,${expires},t\n`);
    const granted = await svc.run([
      'roles',
      'assign',
      '--file',
      file('f1-grant.csv', '7d'),
      '--yes',
      '--ndjson',
    ]);
    expect(granted.code, granted.stderr).toBe(0);
    const extend = [
      'roles',
      'assign',
      '--file',
      file('f1-extend.csv', '30d'),
      '--extend',
      '--yes',
      '--ndjson',
    ];
    const extended = await svc.run(extend);
    expect(extended.code, extended.stderr).toBe(0);
    const [row] = ndjson(extended.stdout);
    expect([row.status, row.reason]).toEqual(['ok', 'expiry_updated']);
    const listing = await svc.run(['roles', 'assignments', user, '--ndjson']);
    const [now] = ndjson(listing.stdout).filter(
      (a) => a.role_id === 'tenant_auditor' && a.status === 'active',
    );
    expect(row.audit_trail_id).toBe(now!.update_audit_trail_id);
    expect(row.audit_trail_id).not.toBe(now!.audit_trail_id);
    const words =
      `the row is the result row of an --extend run: it moved the expiry of ${user}'s tenant_auditor grant (audit trail ${now!.audit_trail_id}), made before that run, from ${row.previous_expires_at} to ${row.expires_at}; ` +
      'revoking would end that grant, which is not the undo of an extension; not revoked: to put the expiry back, ' +
      `svc roles assign ${user} tenant_auditor --extend --expires-at ${row.previous_expires_at} --justification TEXT; ` +
      `to end the grant, revoke the row of \`svc roles assignments ${user} --ndjson\``;
    // With its audit trail id (the extension's), and without it (a server that gives none names the grant's).
    for (const sent of [row, { ...row, audit_trail_id: now!.audit_trail_id }]) {
      const stdin = `${JSON.stringify(sent)}\n`;
      const dry = await svc.run(['roles', 'revoke', '--file', '-', '--dry-run', '--ndjson'], { stdin });
      expect(ndjson(dry.stdout).map((r) => [r.plan, r.error?.code, r.error?.message])).toEqual([
        ['fail', 'extension_row', words],
      ]);
      const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--ndjson'], { stdin });
      expect(r.code, r.stderr).toBe(7);
      expect(ndjson(r.stdout).map((x) => [x.status, x.error?.code, x.error?.message])).toEqual([
        ['failed', 'extension_row', words],
      ]);
      expect(r.stderr).not.toContain('✓');
      expect(await auditorHeld(user)).toHaveLength(1);
    }
    // Cut to its user, role and audit trail id: the id is still the held grant's extension.
    const cut = `${JSON.stringify({ user_id: user, role_id: 'tenant_auditor', audit_trail_id: row.audit_trail_id })}\n`;
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--ndjson'], { stdin: cut });
    expect(r.code, r.stderr).toBe(7);
    expect(ndjson(r.stdout).map((x) => [x.status, x.error?.code])).toEqual([['failed', 'extension_row']]);
    expect(ndjson(r.stdout)[0].error.message).toContain(
      `grant (audit trail ${now!.audit_trail_id}), made before that run; revoking would end that grant, which is not the undo of an extension; not revoked: to put the expiry back, svc roles assign ${user} tenant_auditor --extend --expires-at TIME (its expiry before that run) --justification TEXT;`,
    );
    expect(await auditorHeld(user)).toHaveLength(1);
  });

  it('under -p and --tenant (not the active profile, not its tenant): the advice names them (attack25a F1)', async () => {
    // Pasted as printed it granted the role in the active profile's default tenant.
    const user = bulkUser(12);
    const env = { SVC_TENANT: '' };
    const made = await svc.run(['-p', 'ops', 'config', 'set', 'base_url', sandbox().url], { env });
    expect(made.code, made.stderr).toBe(0);
    const at = ['-p', 'ops', '--tenant', 'acme-labs'];
    const file = (name: string, expires: string) =>
      svc.file(name, `user,role,expires_in,justification\n${user},tenant_auditor,${expires},t\n`);
    const granted = await svc.run(
      [...at, 'roles', 'assign', '--file', file('f1p-grant.csv', '7d'), '--yes'],
      {
        env,
      },
    );
    expect(granted.code, granted.stderr).toBe(0);
    const extended = await svc.run(
      [...at, 'roles', 'assign', '--file', file('f1p-extend.csv', '30d'), '--extend', '--yes', '--ndjson'],
      { env },
    );
    expect(extended.code, extended.stderr).toBe(0);
    const [row] = ndjson(extended.stdout);
    const r = await svc.run([...at, 'roles', 'revoke', '--file', '-', '--yes', '--ndjson'], {
      env,
      stdin: `${JSON.stringify(row)}\n`,
    });
    expect(r.code, r.stderr).toBe(7);
    const message: string = ndjson(r.stdout)[0].error.message;
    expect(message.slice(message.indexOf('not revoked: '))).toBe(
      'not revoked: to put the expiry back, ' +
        `svc -p ops --tenant acme-labs roles assign ${user} tenant_auditor --extend --expires-at ${row.previous_expires_at} --justification TEXT; ` +
        `to end the grant, revoke the row of \`svc -p ops --tenant acme-labs roles assignments ${user} --ndjson\``,
    );
  });

  it('audit_trail_id that is not a string: a problem of its line, nothing sent', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: `${JSON.stringify({ user: bulkUser(11), role: 'tenant_auditor', audit_trail_id: 7 })}\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(':1: audit_trail_id must be the audit trail id of a grant, got 7');
  });
});

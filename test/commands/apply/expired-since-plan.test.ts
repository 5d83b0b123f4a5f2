import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { advanceClock, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A saved plan went stale whenever a grant it would revoke (a removal, made only with --prune)
// reached the expiry the plan itself showed (attack22 F5): in a tenant of just-in-time grants a
// reviewed plan was refused as "changed since" within minutes, though applying it changed none of
// them. Such a grant ended as the plan foresaw: no drift, and with --prune nothing is sent for it.
const svc = useSandboxContext({ users: 30 }, { tenant: false });
const dir = useTempDir('svc-expired-since-');
const real = { clock: { now: () => Date.now() } };

const GRANTS = (role: string, n: number) =>
  `version: 1\nmanage: {grants: listed-roles}\nblocks:\n  - tenants: acme-labs\n    grants:\n      - { user: ${user(n)}, role: ${role} }\n`;

/** A grant of `role` to user `n` ending two minutes from the platform's time, made outside the file. */
async function shortGrant(role: string, n: number): Promise<string> {
  const sandbox = svc.sandbox();
  const ends = new Date(Math.floor((await sandboxNow(sandbox)) / 1000) * 1000 + 120_000)
    .toISOString()
    .replace('.000Z', 'Z');
  await as(sandbox, LABS, 'POST', `/v1/users/${user(n)}/roles`, {
    role_id: role,
    expires_at: ends,
    justification: 'just in time',
  });
  return ends;
}

// No drift, and no "removals were not applied: run svc apply with --prune" (there is none to make).
const SUMMARY = /^✓ 1 applied \([\d.]+ s\)\n$/;

describe('a saved plan whose removals expired since, as it showed', () => {
  it('is applied: without --prune the rest is made, and the expired removal is not offered to --prune', async () => {
    const ends = await shortGrant('tenant_viewer', 1);
    const saved = join(dir, 'viewer.plan.json');
    const file = writeFile(dir, 'viewer.yaml', GRANTS('tenant_viewer', 2));
    const planned = await svc.run(['plan', '-f', file, '--out', saved], real);
    expect(planned.code, planned.stderr).toBe(10);
    expect(planned.stdout).toContain(
      `revoke\t${user(1)} tenant_viewer\t\t\theld until ${ends}; only with --prune\n`,
    );
    await advanceClock(svc.sandbox(), 180);
    const r = await svc.run(['apply', saved, '--yes', '--ndjson'], real);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(SUMMARY)]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: 'grant',
      action: 'grant',
      name: `${user(2)} tenant_viewer`,
      status: 'ok',
    });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('is applied with --prune: the revocation is not sent, its row says the grant ended and the planned expiry', async () => {
    const ends = await shortGrant('tenant_auditor', 3);
    const saved = join(dir, 'auditor.plan.json');
    const file = writeFile(dir, 'auditor.yaml', GRANTS('tenant_auditor', 4));
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await advanceClock(svc.sandbox(), 180);
    const before = await writes(svc.sandbox());
    const r = await svc.run(['apply', saved, '--yes', '--prune', '--ndjson'], real);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^✓ 1 applied, 1 skipped \([\d.]+ s\)\n$/)]);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.find((row) => row.action === 'revoke')).toEqual({
      tenant: 'acme-labs',
      kind: 'grant',
      action: 'revoke',
      name: `${user(3)} tenant_auditor`,
      status: 'skipped',
      reason: 'ended',
      planned_expires_at: ends,
    });
    // One write: the grant of user 4; the revocation was not sent.
    expect(await writes(svc.sandbox())).toBe(before + 1);
  });

  // review22b F6: the platform lists no ended grants, so an expiry cannot be told from a revocation:
  // the row says what is known (not held, the planned expiry passed), not "expired".
  it('says of that revocation only what is known: not held, its planned expiry passed, nothing sent', async () => {
    const ends = await shortGrant('tenant_auditor', 5);
    const saved = join(dir, 'auditor-words.plan.json');
    const file = writeFile(dir, 'auditor-words.yaml', GRANTS('tenant_auditor', 6));
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await advanceClock(svc.sandbox(), 180);
    const r = await svc.run(['apply', saved, '--yes', '--prune'], real);
    expect([r.code, r.stdout]).toEqual([
      0,
      expect.stringContaining(
        `\tacme-labs\tgrant\trevoke\t${user(5)} tenant_auditor\tskipped\t\tended: not held, its planned expiry ${ends} has passed; nothing sent\n`,
      ),
    ]);
    expect(r.stdout).not.toContain('expired');
  });
});

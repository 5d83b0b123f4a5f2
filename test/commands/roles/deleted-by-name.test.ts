import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// attack26a F1: a deleted role named by its name was an "unknown role (did you mean <another live
// role>?)", exit 5, to delete, update, assign and revoke, while by its id the same role "was
// deleted at …", exit 6. A name stands for the role the id does: the live role of that name, else
// the one of that name deleted last; so every verb answers by name as it does by id.
const svc = useSandboxContext();

async function role(name: string): Promise<string> {
  const r = await svc.run(['roles', 'create', '--name', name, '--permission', 'exception.read', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
}

/** The answer with its request id cut, so that the id and the name paths compare whole. */
const said = (r: { code: number; stdout: string; stderr: string }) => [
  r.code,
  r.stdout,
  r.stderr.replace(/request req_[0-9a-z_]+/g, 'request R'),
];

describe('a deleted role named by its name', () => {
  it('is answered as by its id: update and assign are refused as deleted (exit 6), revoke as not held, no did-you-mean', async () => {
    const id = await role('f1-gone');
    await role('f1-gone2');
    expect((await svc.run(['roles', 'delete', id, '--yes'])).code).toBe(0);
    const at = JSON.parse((await svc.run(['roles', 'get', id, '--json'])).stdout).deleted_at as string;

    for (const [verb, ...rest] of [
      ['update', '--description', 'hi'],
      ['assign', 'usr_analyst', '--expires-in', '1h', '--justification', 'j'],
    ] as const) {
      const args = (ref: string) =>
        verb === 'assign' ? ['roles', verb, rest[0], ref, ...rest.slice(1)] : ['roles', verb, ref, ...rest];
      const byName = await svc.run(args('f1-gone'), { now: Date.now() });
      const byId = await svc.run(args(id), { now: Date.now() });
      expect(said(byName)).toEqual(said(byId));
      expect([byName.code, byName.stdout]).toEqual([6, '']);
      expect(byName.stderr).toMatch(
        new RegExp(
          `^error: role f1-gone \\(${id}\\) was deleted at ${at} \\(HTTP 409, role_deleted, request`,
        ),
      );
    }
    const byName = await svc.run(['roles', 'revoke', 'usr_analyst', 'f1-gone', '--yes']);
    const byId = await svc.run(['roles', 'revoke', 'usr_analyst', id, '--yes']);
    expect(said(byName)).toEqual(said(byId));
    expect(byName.code).toBe(5);
    expect(byName.stderr).toMatch(
      /^error: usr_analyst does not hold f1-gone in this tenant \(HTTP 404, assignment_not_found/,
    );
    expect(byName.stderr).not.toContain('did you mean');
  });

  it('a name a live role has again is that live role, whatever role had it before', async () => {
    const old = await role('f1-reused');
    expect((await svc.run(['roles', 'delete', old, '--yes'])).code).toBe(0);
    const live = await role('f1-reused');
    const updated = await svc.run(['roles', 'update', 'f1-reused', '--description', 'now', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: live, description: 'now' });
  });

  it('a name no role ever had is still unknown, with a live role to suggest', async () => {
    await role('f1-desk');
    const r = await svc.run(['roles', 'update', 'f1-dest', '--description', 'x']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      5,
      '',
      'error: unknown role "f1-dest" (did you mean f1-desk?) in this tenant; see `svc roles ls` for the roles of the tenant\n',
    ]);
  });
});

// attack26a F2: `roles delete` of a role deleted already asked (on a terminal), then failed 409
// role_deleted, exit 6; `records delete` and `api-keys revoke` say "nothing changed", exit 0.
describe('roles delete of a role deleted already', () => {
  it('says nothing changed, exit 0, by id and by name, without asking or --yes', async () => {
    const id = await role('f2-gone');
    expect((await svc.run(['roles', 'delete', id, '--yes'])).code).toBe(0);
    const at = JSON.parse((await svc.run(['roles', 'get', id, '--json'])).stdout).deleted_at as string;
    for (const ref of [id, 'f2-gone']) {
      const again = await svc.run(['roles', 'delete', ref], { tty: true, answers: [] });
      expect([again.code, again.stdout, again.stderr]).toEqual([
        0,
        '',
        // The tenant as the ✓ line of a delete names it (the run's SVC_TENANT).
        `nothing changed: role f2-gone (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 was deleted already, at ${at}\n`,
      ]);
      const piped = await svc.run(['roles', 'delete', ref, '--json']);
      expect([piped.code, piped.stderr]).toEqual([0, '']);
      expect(JSON.parse(piped.stdout)).toMatchObject({
        id,
        name: 'f2-gone',
        deleted_at: at,
        outcome: 'already_deleted',
      });
    }
  });
});

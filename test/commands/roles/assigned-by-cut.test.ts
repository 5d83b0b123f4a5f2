/**
 * `assigned by` holds who made a grant (a user's id, an API key's, a client's, `system`): the
 * audit trail's actor, whose column is a name (cut only as far as no two read alike). It was plain
 * text, cut to a few characters, so two assigners read alike (`usr_7…` twice) where the audit
 * trail told them apart (closing note of session 23, review22e).
 */
import { describe, expect, it } from 'vitest';
import type { RoleAssignment } from '../../../src/api/schemas/roles.js';
import { HOLDER_COLUMNS } from '../../../src/commands/roles/holders.js';
import { ASSIGNMENT_COLUMNS } from '../../../src/commands/roles/shared.js';
import { type Column, Output } from '../../../src/output/output.js';
import { fakeIO } from '../../helpers/context.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

const grant = (user: string, by: string, trail: string): RoleAssignment =>
  ({
    user_id: user,
    role_id: 'role_payments_approver',
    role_name: 'payments-approver',
    status: 'active',
    assigned_by: by,
    assigned_at: '2026-11-20T11:58:33Z',
    expires_at: null,
    audit_trail_id: trail,
    justification: 'quarter close',
  }) as unknown as RoleAssignment;

async function table(columns: number, rows: RoleAssignment[], of: Array<Column<RoleAssignment>>) {
  const fake = fakeIO({ tty: true, columns });
  await new Output(fake.io, 'table', () => NOW).list(rows, of);
  return { stdout: fake.stdout(), stderr: fake.stderr() };
}

describe("the `assigned by` column is cut as the audit trail's actor is, never to two alike", () => {
  it('roles holders at 50 columns: the two assigners told apart, the note names the column', async () => {
    const rows = [
      grant('usr_3d9a01', 'usr_7c41d09a2f5e', 'aud_5b1e0c7f22a3'),
      grant('usr_3d9a02', 'usr_7c41d09b8e17', 'aud_9f04d2a6c1b8'),
    ];
    expect(await table(50, rows, HOLDER_COLUMNS)).toEqual({
      // Was `usr_7…` on both rows.
      stdout:
        'USER        STATUS  EXPIRES  ASSIGNED BY    ASSIGNED\n' +
        'usr_3d9a01  active  never    usr_7c41d09a…  87 seconds ago\n' +
        'usr_3d9a02  active  never    usr_7c41d09b…  87 seconds ago\n',
      stderr:
        '(the table is wider than the terminal: USER, STATUS, EXPIRES and ASSIGNED cannot be shorter, and the names in ASSIGNED BY would read alike cut shorter; a pipe or --json shows ASSIGNED BY whole)\n',
    });
  });

  it("roles assignments USER at 40 columns: API keys as assigners, the same rule in a user's listing", async () => {
    const rows = [
      grant('usr_3d9a01', 'key_4be1e09c77d2', 'aud_5b1e0c7f22a3'),
      grant('usr_3d9a01', 'key_4be1f2d0aa31', 'aud_9f04d2a6c1b8'),
      grant('usr_3d9a01', 'system', 'aud_0c3e7a9d5f16'),
    ];
    const { stdout } = await table(40, rows, ASSIGNMENT_COLUMNS);
    // Was `key_4…` on both keys' rows.
    expect(stdout.split('\n').map((line) => line.split(/ {2,}/)[3])).toEqual([
      'ASSIGNED …',
      'key_4be1e…',
      'key_4be1f…',
      'system',
      undefined,
    ]);
  });
});

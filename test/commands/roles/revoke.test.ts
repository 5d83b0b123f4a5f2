import { describe, expect, it } from 'vitest';
import { parseRolesRevoke, runRolesRevoke } from '../../../src/commands/roles/revoke.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// `svc roles revoke` on a terminal: the question says when the grant is the caller's own (giving
// up one's tenant_admin was asked exactly like revoking someone else's).
const svc = useSandboxContext();

describe('svc roles revoke: the question', () => {
  it.each([
    [
      'usr_admin',
      'tenant_admin',
      'Revoke your own tenant_admin grant (usr_admin) in Acme Treasury (acme-treasury)?',
    ],
    ['usr_lead', 'tenant_lead', 'Revoke tenant_lead from usr_lead in Acme Treasury (acme-treasury)?'],
  ])('%s %s asks %j', async (user, role, question) => {
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    await expect(runRolesRevoke(ctx, parseRolesRevoke(user, role, {}))).rejects.toThrow('cancelled');
    expect(questions).toEqual([question]);
  });
});

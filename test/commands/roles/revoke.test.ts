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
      // The seeded webhooks are usr_admin's, and tenant_admin is their only exception.read (attack29a F1).
      'Revoke your own tenant_admin grant (usr_admin) in Acme Treasury (acme-treasury)? This stops 2 webhooks of ' +
        'usr_admin (wh_0469c93f8ec9ac200ad15e37, wh_1bb15de4751e9d180d54ca7a): a webhook delivers only while its ' +
        "owner holds its kinds' read permission (and, set up through an API key, while the key acts), and stays stopped after they regain it.",
    ],
    ['usr_lead', 'tenant_lead', 'Revoke tenant_lead from usr_lead in Acme Treasury (acme-treasury)?'],
  ])('%s %s asks %j', async (user, role, question) => {
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    await expect(runRolesRevoke(ctx, parseRolesRevoke(user, role, {}))).rejects.toThrow('cancelled');
    expect(questions).toEqual([question]);
  });
});

import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { createClient, TREASURY } from '../../helpers/oauth.js';
import { adminGrant, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

// Session 14: a just-in-time admin rotated an admin-scoped client's secret and kept it after the
// grant ended. svc says the platform's refusal on one line, with the end date and the fix, exit 4
// (permission denied), and prints no secret.
const svc = useSandboxContext({ users: 5 });

describe('svc oauth rotate-secret as a just-in-time admin', () => {
  it('is refused on one line naming until when the permissions are held and who may do it; exit 4, nothing on stdout', async () => {
    const sandbox = svc.sandbox();
    const until = isoSeconds((await sandboxNow(sandbox)) + 2 * 3600_000);
    await adminGrant(sandbox, TREASURY, 'usr_bulk_000001', 'tenant_admin', until);
    const client = await createClient(sandbox, { scopes: ['admin'] });
    const r = await svc.run(['oauth', 'rotate-secret', client.client_id, '--yes', '--show-secret'], {
      env: { SVC_TOKEN: sandbox.issueToken('usr_bulk_000001').token },
    });
    expect({ ...r, stderr: r.stderr.replace(/request req_[0-9a-f]+/, 'request req_X') }).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: rotating an OAuth client's secret hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; you hold those of admin (every permission of the tenant; 26 of them: account.read, account.write, ai_copilot.use, ai_copilot.use.fx, api_key.manage and 21 more) only until ${until}; have someone who holds them without an end date do it (HTTP 403, insufficient_permission, request req_X)\n`,
    });
    expect(sandbox.state.oauth.clients.get(client.client_id)!.secret_rotated_at).toBeNull();
  });
});

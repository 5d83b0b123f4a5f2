/**
 * F2 (findings-config16): a destructive question names the server and profile it acts on when
 * they may not be what the user thinks — a profile named by -p or SVC_PROFILE, a base URL from
 * SVC_BASE_URL or --base-url over a stored profile's — since prod and staging tenants are copies.
 */
import { describe, expect, it } from 'vitest';
import { parseRolesRevoke, runRolesRevoke } from '../../src/commands/roles/revoke.js';
import { ConfigStore } from '../../src/config/store.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const QUESTION = 'Revoke tenant_lead from usr_lead in Acme Treasury (acme-treasury)?';

describe('a destructive question says where it acts', () => {
  it('names the server and the profile SVC_PROFILE put in force', async () => {
    await new ConfigStore(svc.env().SVC_CONFIG_DIR!).setProfileValues('prod', {
      base_url: svc.sandbox().url,
    });
    const { ctx, questions } = svc.context({ tty: true, answers: [false], env: { SVC_PROFILE: 'prod' } });
    await expect(runRolesRevoke(ctx, parseRolesRevoke('usr_lead', 'tenant_lead', {}))).rejects.toThrow(
      'cancelled',
    );
    expect(questions).toEqual([
      `${QUESTION} [on ${svc.sandbox().url} (from SVC_BASE_URL), profile "prod", from SVC_PROFILE]`,
    ]);
  });

  it('says nothing more when no profile was named and none is overridden', async () => {
    const { ctx, questions } = svc.context({ tty: true, answers: [false], env: { SVC_PROFILE: undefined } });
    await expect(runRolesRevoke(ctx, parseRolesRevoke('usr_lead', 'tenant_lead', {}))).rejects.toThrow(
      'cancelled',
    );
    expect(questions).toEqual([QUESTION]);
  });
});

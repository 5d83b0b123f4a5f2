/**
 * F2 (findings-config16): a destructive question names the server and profile it acts on when
 * they may not be what the user thinks — a profile named by -p or SVC_PROFILE, a base URL from
 * SVC_BASE_URL or --base-url over a stored profile's — since prod and staging tenants are copies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { confirmDestructive } from '../../src/commands/kit.js';
import { parseRolesRevoke, runRolesRevoke } from '../../src/commands/roles/revoke.js';
import { ConfigStore } from '../../src/config/store.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';

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

  // attack23 F2: SVC_TOKEN replaces the profile's own login, so the change is made (and audited)
  // as the token's identity; the question read as the profile's login (usr_admin here).
  describe('SVC_TOKEN over a profile that holds a login of its own', () => {
    const prod = async () => {
      const store = new ConfigStore(svc.env().SVC_CONFIG_DIR!);
      await store.setProfileValues('prod', { base_url: svc.sandbox().url, tenant: ACME });
      await store.setCredential('prod', {
        type: 'token',
        access_token: svc.sandbox().adminToken,
        obtained_at: new Date().toISOString(),
      });
      await store.setActiveProfile('prod');
    };
    const lead = () => svc.sandbox().issueToken('usr_lead').token;
    // usr_lead (tenant_lead) cannot read the webhooks: the question says svc could not tell which a
    // revoke stops (attack29a F1), with the refusal's first clause.
    const ANALYST =
      "Revoke tenant_analyst from usr_analyst in Acme Treasury (acme-treasury)? svc could not tell which webhooks this stops (reading the webhooks or their owners' grants failed: listing webhooks needs permission webhook.read in tenant acme-treasury, which your live roles there (tenant_lead) do not grant): a webhook delivers only while its owner holds its kinds' read permission (and, set up through an API key, while the key acts), and stays stopped after they regain it.";
    afterEach(async () => {
      await new ConfigStore(svc.env().SVC_CONFIG_DIR!).removeProfile('prod');
    });

    it('the active profile: says who acts, from SVC_TOKEN, and that it is not the profile’s login', async () => {
      await prod();
      const { ctx, questions } = svc.context({
        tty: true,
        answers: [false],
        env: { SVC_BASE_URL: undefined, SVC_TOKEN: lead() },
      });
      await expect(
        runRolesRevoke(ctx, parseRolesRevoke('usr_analyst', 'tenant_analyst', {})),
      ).rejects.toThrow('cancelled');
      expect(questions).toEqual([`${ANALYST} [as usr_lead from SVC_TOKEN, not the login of profile "prod"]`]);
    });

    it('a profile named by -p: where, then who', async () => {
      await prod();
      const { ctx, questions } = svc.context({
        tty: true,
        answers: [false],
        env: { SVC_BASE_URL: undefined, SVC_TOKEN: lead() },
        globals: { profile: 'prod' },
      });
      await expect(
        runRolesRevoke(ctx, parseRolesRevoke('usr_analyst', 'tenant_analyst', {})),
      ).rejects.toThrow('cancelled');
      expect(questions).toEqual([
        `${ANALYST} [on ${svc.sandbox().url}, profile "prod", from -p; as usr_lead from SVC_TOKEN, not the login of profile "prod"]`,
      ]);
    });

    it('a token that is no JWT is named masked, never whole', async () => {
      await prod();
      const key = 'svc_sk_abcdefghijklmnopqrstuvwxyz0123';
      const { ctx, questions } = svc.context({
        tty: true,
        answers: [false],
        env: { SVC_BASE_URL: undefined, SVC_TOKEN: key },
      });
      // The key is unknown to the platform: the question's tenant lookup is refused, so the
      // question is built here by hand as confirmDestructive's caller would.
      await expect(confirmDestructive(ctx, 'Delete it?', 'deleting it')).rejects.toThrow('cancelled');
      expect(questions).toEqual([
        'Delete it? [as svc_sk_****0123 from SVC_TOKEN, not the login of profile "prod"]',
      ]);
    });
  });

  it('says nothing more when no profile was named and none is overridden', async () => {
    const { ctx, questions } = svc.context({ tty: true, answers: [false], env: { SVC_PROFILE: undefined } });
    await expect(runRolesRevoke(ctx, parseRolesRevoke('usr_lead', 'tenant_lead', {}))).rejects.toThrow(
      'cancelled',
    );
    expect(questions).toEqual([QUESTION]);
  });
});

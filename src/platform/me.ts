import type { Me } from '../api/schemas/me.js';
import type { SvcError } from '../errors.js';
import { ApiPromise } from './api-promise.js';
import { baseUrlHint, MissingRouteError, TenantForbiddenError } from './errors.js';
import { MeAnswer } from './schemas.js';
import { ForeignTenantError, UnknownTenantError } from './tenant-ref.js';
import { keepTenantsSaid } from './tenants-said.js';
import type { CallOptions, Transport } from './transport.js';

/** The answer of GET /v1/me; `credential` is a sandbox addition other servers may leave out. */
export type CallerIdentity = Omit<Me, 'credential'> & { credential?: Me['credential'] };

/** The calling identity (`/v1/me`). */
export class Identity {
  constructor(private readonly transport: Transport) {}

  /**
   * Who the credential is, its tenants and organisation. `options.credentials` checks another
   * credential. Every answer keeps the words the platform gave its tenants in this run (for the ✓
   * line of a change in one of them: changed-in.ts), a read made only to weigh another answer (a
   * grant's assigned_by: grantAnswerNotMade) too: the line names a tenant in one form whenever the
   * run knows its names (attack29a: `roles assign`, which reads /v1/me on every grant, printed the
   * id the run had read the names of).
   */
  get(options?: CallOptions): ApiPromise<CallerIdentity> {
    // Every server of the API has it: a 404 says the base URL is wrong (a tenant slug's look-up too).
    const answer = this.transport.call<CallerIdentity>(
      {
        method: 'GET',
        path: '/v1/me',
        schema: MeAnswer,
        notFound: MissingRouteError,
        lookIn: baseUrlHint('GET /v1/me'),
      },
      options,
    );
    const settings = this.transport.settings;
    if (settings === undefined) return answer;
    return new ApiPromise(
      answer.withResponse().then((said) => {
        if (Array.isArray(said.data.tenants)) keepTenantsSaid(settings, said.data.tenants);
        return said;
      }),
    );
  }

  /**
   * The identity even when the run's tenant is not one of the credential's (a profile reused for
   * another login): asked again without X-Tenant-Id, with the refusal in `refused`. For the
   * commands whose job is to say who you are (`me`, `tenants ls`, `auth status`, a login).
   */
  async despiteTenant(options?: CallOptions): Promise<{ identity: CallerIdentity; refused?: SvcError }> {
    try {
      return { identity: await this.get(options) };
    } catch (error) {
      const notYours =
        error instanceof UnknownTenantError ||
        error instanceof ForeignTenantError ||
        error instanceof TenantForbiddenError;
      if (!notYours) throw error;
      return { identity: await this.get({ ...options, tenant: null }), refused: error };
    }
  }
}

import type { Me } from '../api/schemas/me.js';
import type { ApiPromise } from './api-promise.js';
import { baseUrlHint, MissingRouteError } from './errors.js';
import { MeAnswer } from './schemas.js';
import type { CallOptions, Transport } from './transport.js';

/** The answer of GET /v1/me; `credential` is a sandbox addition other servers may leave out. */
export type CallerIdentity = Omit<Me, 'credential'> & { credential?: Me['credential'] };

/** The calling identity (`/v1/me`). */
export class Identity {
  constructor(private readonly transport: Transport) {}

  /** Who the credential is, its tenants and organisation. `options.token` checks another credential. */
  get(options?: CallOptions): ApiPromise<CallerIdentity> {
    // Every server of the API has it: a 404 says the base URL is wrong (a tenant slug's look-up too).
    return this.transport.call(
      {
        method: 'GET',
        path: '/v1/me',
        schema: MeAnswer,
        notFound: MissingRouteError,
        lookIn: baseUrlHint('GET /v1/me'),
      },
      options,
    );
  }
}

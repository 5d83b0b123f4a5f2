import { Me } from '../api/schemas/me.js';
import type { ApiPromise } from './api-promise.js';
import type { CallOptions, Transport } from './transport.js';

/** The calling identity (`/v1/me`). */
export class Identity {
  constructor(private readonly transport: Transport) {}

  /** Who the credential is, its tenants and organisation. `options.token` checks another credential. */
  get(options?: CallOptions): ApiPromise<Me> {
    return this.transport.call({ method: 'GET', path: '/v1/me', schema: Me }, options);
  }
}

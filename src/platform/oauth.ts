import {
  OAuthClient,
  type OAuthClientCreateBody,
  OAuthClientDeleted,
  OAuthClientList,
  type OAuthClientUpdateBody,
  OAuthClientWithSecret,
} from '../api/schemas/oauth.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import { OAuthClientNotFoundError, shownBy } from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/**
 * OAuth clients of the tenant (`/v1/oauth/clients`). The token endpoint is not here: it belongs
 * to the credentials (src/auth/token-endpoint.ts), which this client itself depends on.
 */
export class OAuthClients {
  constructor(private readonly transport: Transport) {}

  /**
   * Registers a client; the answer is the only place its secret is ever shown. `scopes` may be
   * left out: the reference does not say it is required, so the server decides.
   */
  create(
    body: Omit<OAuthClientCreateBody, 'idempotency_key' | 'scopes'> & { scopes?: string[] },
    options?: CallOptions,
  ): ApiPromise<OAuthClientWithSecret> {
    return this.transport.call(
      {
        method: 'POST',
        path: '/v1/oauth/clients',
        body,
        schema: OAuthClientWithSecret,
        check: shownBy('oauth ls'),
      },
      options,
    );
  }

  list(options?: CallOptions): ApiPromise<{ items: OAuthClient[]; next_cursor?: string | null }> {
    return this.transport.page(
      { method: 'GET', path: '/v1/oauth/clients', schema: OAuthClientList },
      options,
    );
  }

  get(clientId: string, options?: CallOptions): ApiPromise<OAuthClient> {
    const operation = {
      method: 'GET',
      path: path`/v1/oauth/clients/${clientId}`,
      schema: OAuthClient,
      notFound: OAuthClientNotFoundError,
      about: { client_id: clientId },
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /**
   * Changes registration fields (arrays replace); the server checks the client as changed like
   * a new one. The secret is not touched and never in the answer.
   */
  update(clientId: string, body: OAuthClientUpdateBody, options?: CallOptions): ApiPromise<OAuthClient> {
    const operation = {
      method: 'PATCH',
      path: path`/v1/oauth/clients/${clientId}`,
      body,
      schema: OAuthClient,
      notFound: OAuthClientNotFoundError,
      about: { client_id: clientId },
      check: shownBy('oauth get', clientId),
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /** Removes the client: its secret and every token issued to it stop working. */
  delete(clientId: string, options?: CallOptions): ApiPromise<OAuthClientDeleted> {
    const operation = {
      method: 'DELETE',
      path: path`/v1/oauth/clients/${clientId}`,
      schema: OAuthClientDeleted,
      notFound: OAuthClientNotFoundError,
      about: { client_id: clientId },
      gone: { ended: ['deleted'] },
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /** Replaces the client's secret at once; the answer carries the new one. */
  rotateSecret(clientId: string, options?: CallOptions): ApiPromise<OAuthClientWithSecret> {
    const operation = {
      method: 'POST',
      path: path`/v1/oauth/clients/${clientId}/rotate-secret`,
      schema: OAuthClientWithSecret,
      notFound: OAuthClientNotFoundError,
      // Another client's record (and secret) is not this rotation.
      about: { client_id: clientId },
      tenant: true,
      // Its secret_rotated_at says whether an answer svc could not read was a rotation made.
      check: shownBy('oauth get', clientId),
    } as const;
    return this.transport.call(operation, options);
  }
}

export class OAuth {
  readonly clients: OAuthClients;

  constructor(transport: Transport) {
    this.clients = new OAuthClients(transport);
  }
}

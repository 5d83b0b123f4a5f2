import type { FaultInjector } from '../plugins/faults.js';
import type { SandboxState } from '../state.js';

/** What route modules get besides the Fastify instance. */
export interface RouteContext {
  state: SandboxState;
  faults: FaultInjector;
  /** The sandbox's base URL (also the JWT issuer). */
  baseUrl: () => string;
  log: (line: string) => void;
  /** Issues a sandbox JWT for a user (see tokens.ts). */
  issueToken: (
    userId: string,
    options?: { expiresInSeconds?: number; tenantIds?: string[] },
  ) => {
    token: string;
    expiresAt: string;
  };
}

/** The standard error responses of an authenticated, tenant-scoped endpoint, for the OpenAPI document. */
export function errorResponses(
  ...statuses: number[]
): Record<number, { $ref: string; description?: string }> {
  const out: Record<number, { $ref: string }> = {};
  for (const status of statuses) out[status] = { $ref: 'ErrorBody#' };
  return out;
}

import type { FastifyInstance } from 'fastify';
import { ApiProblem } from '../problem.js';

/**
 * The headers the platform reads one value of. Node joins a repeated unknown header with ", "
 * (two X-Tenant-Id lines became the tenant "A, A", refused as a cross-tenant attempt and logged as
 * one) and keeps the first of a repeated Authorization or Content-Type, so a gateway that keeps
 * the last would act on another value than the sandbox. Either way two values are ambiguous:
 * refused, by name, before authentication (so no security event is logged for them).
 * Content-Length twice is refused by Node's parser already (400 "not valid HTTP/1.1").
 */
const SINGLE_VALUED = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Tenant-Id',
  'X-SVC-Org-Id',
  'Host',
];
const BY_LOWER_NAME = new Map(SINGLE_VALUED.map((name) => [name.toLowerCase(), name]));

export function registerSingleValuedHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const raw = request.raw.rawHeaders;
    const seen = new Set<string>();
    for (let i = 0; i < raw.length; i += 2) {
      const name = BY_LOWER_NAME.get(raw[i]!.toLowerCase());
      if (name === undefined) continue;
      if (seen.has(name)) {
        throw new ApiProblem(
          400,
          'invalid_request',
          `the ${name} header is given more than once; send it once`,
        );
      }
      seen.add(name);
    }
  });
}

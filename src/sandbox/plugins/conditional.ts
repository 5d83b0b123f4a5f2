import type { FastifyInstance } from 'fastify';
import { ApiProblem } from '../problem.js';

/**
 * Conditional requests (RFC 9110 §13). The platform sends no ETag or Last-Modified, so it has
 * nothing to evaluate a precondition against; ignoring one would perform a change whose condition
 * the client meant to be false (a lost update it believes was prevented, §13.1.1). So a
 * precondition is refused, by name, before authentication: If-Match and If-Unmodified-Since on
 * any method, If-None-Match on any method but GET and HEAD (there it only asks a cache's question,
 * and the full answer is a right answer, as is ignoring If-Modified-Since and If-Range).
 */
const ALWAYS = ['If-Match', 'If-Unmodified-Since'];
const UNSAFE_ONLY = ['If-None-Match'];

export function registerConditionalRefusal(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const reading = request.method === 'GET' || request.method === 'HEAD';
    const refused = [...ALWAYS, ...(reading ? [] : UNSAFE_ONLY)];
    const name = refused.find((header) => request.headers[header.toLowerCase()] !== undefined);
    if (name === undefined) return;
    throw new ApiProblem(
      400,
      'invalid_request',
      `the ${name} header is not supported: the platform has no ETags or modification dates to check it against; send the request without it`,
    );
  });
}

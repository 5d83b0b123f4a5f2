import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OPERATIONS } from '../../api/operations.js';
import { didYouMean } from '../../api/suggest.js';
import { ApiProblem } from '../problem.js';
import { sendProblem } from './errors.js';

/** The order Allow lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The first segments of every path under /v1 (`/v1/tenants`, …), to suggest one for a typo. */
const V1_ROOTS = [
  ...new Set(Object.values(OPERATIONS).map((rule) => rule.path.split('/').slice(0, 3).join('/'))),
];

function notFoundMessage(method: string, path: string): string {
  const root = path.split('/').slice(0, 3).join('/');
  const hint = path.startsWith('/v1/') && !V1_ROOTS.includes(root) ? didYouMean(root, V1_ROOTS) : '';
  return `no route ${method} ${path}${hint}`;
}

/** `/v1/roles/:id` → a pattern of the paths it matches, as the router matches them. */
function pathPattern(url: string): RegExp {
  const segments = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? '[^/]+'
        : segment === '*'
          ? '.*'
          : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * Requests no route takes: 405 method_not_allowed with Allow when the path has other methods
 * (OPTIONS included: the sandbox implements it nowhere), 404 not_found otherwise. Answered in
 * onRequest, registered after every other onRequest hook (injected faults still apply), so no
 * body is parsed and no idempotency or validation check answers first. Fastify's router keeps
 * no per-path list of methods, so the routes are collected as they are added: call this before
 * any route is registered.
 */
export function registerUnmatched(app: FastifyInstance): void {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    routes.push({ pattern: pathPattern(route.url), methods: [route.method].flat() });
  });

  const unmatched = (request: FastifyRequest): ApiProblem => {
    const path = request.url.split('?')[0]!;
    const methods = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods));
    const allow = METHOD_ORDER.filter((m) => methods.has(m)).join(', ');
    if (allow === '') return new ApiProblem(404, 'not_found', notFoundMessage(request.method, path));
    return new ApiProblem(
      405,
      'method_not_allowed',
      `${request.method} is not allowed on ${path}; it allows ${allow}`,
      { headers: { allow } },
    );
  };
  app.addHook('onRequest', async (request) => {
    if (request.is404) throw unmatched(request);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, request, unmatched(request)));
}

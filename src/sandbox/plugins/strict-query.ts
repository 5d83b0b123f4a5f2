import type { FastifyInstance } from 'fastify';

type QuerySchema = { type?: string; properties?: Record<string, unknown>; additionalProperties?: unknown };

/**
 * Unknown query parameters are refused (400 invalid_request naming them and the known ones), as
 * unknown body fields are: a misspelled filter (`tier=free` for `subscription_tier=free`) would
 * otherwise answer unfiltered data as if it were the filtered answer. Done once for every route
 * of the API and of the sandbox's controls as it is added: its querystring schema gets
 * `additionalProperties: false` (a copy: the schemas are shared with svc), and a route without
 * one an empty schema that takes nothing. A route whose schema says otherwise keeps its choice
 * (the OAuth authorization endpoint ignores unknown parameters, RFC 6749 §3.1), as do the form
 * endpoints (`consumes`), whose parameters RFC 6749 defines. Must be registered before the routes.
 */
export function registerStrictQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') && !route.url.startsWith('/_sandbox/')) return;
    route.schema ??= {};
    const schema = route.schema as { querystring?: QuerySchema; consumes?: unknown };
    if (schema.consumes) return;
    const query = schema.querystring;
    if (query?.additionalProperties !== undefined) return;
    schema.querystring = query
      ? { ...query, additionalProperties: false }
      : { type: 'object', properties: {}, additionalProperties: false };
  });
}

/** What an unknown query parameter is told: the parameters the route takes. */
export function knownQueryText(schema: unknown): string {
  const known = Object.keys((schema as QuerySchema | undefined)?.properties ?? {});
  return known.length > 0 ? `this operation takes: ${known.join(', ')}` : 'this operation takes none';
}

import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './context.js';

/** Test controls for OAuth (not platform API): what the token endpoint did, for tests that count. */
export default function oauthControlRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get(
    '/_sandbox/oauth/stats',
    {
      config: { auth: 'public', faultFree: true, operation: 'sandbox_oauth_stats_get' },
      schema: {
        tags: ['sandbox control'],
        summary: 'OAuth counters',
        description:
          'Token endpoint outcomes by grant ("refresh_token ok", "authorization_code invalid_grant", …), authorization codes ' +
          'issued, token families revoked.',
      },
    },
    async () => ({
      grants: Object.fromEntries(Object.entries(state.oauth.grants).sort()),
      codes_issued: state.oauth.codesIssued,
      families_revoked: state.oauth.familiesRevoked,
    }),
  );
}

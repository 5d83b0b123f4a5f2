import { DEMO_ORG } from '../../sandbox/seed.js';
import type { Tour } from '../runner.js';

/** Issue 2: configure a profile, log in with a token, see who you are, list tenants. */
export async function foundation(tour: Tour): Promise<void> {
  const { sandbox } = tour;
  tour.chapter('Point svc at the platform and log in');
  tour.say('Profiles hold the base URL, tenant and org; the credential goes to a separate 0600 file.');
  await tour.svc(['config', 'set', 'base_url', sandbox.url]);
  await tour.svc(['config', 'set', 'org', DEMO_ORG]);
  await tour.svc(['login', '--with-token'], { input: sandbox.adminToken, inputLabel: 'admin-token.txt' });
  await tour.svc(['auth', 'status'], { tty: true });
  await tour.svc(['me'], { tty: true });

  tour.chapter('Tenants');
  tour.say(
    'On a terminal: a table with relative times. In a pipe: tab-separated rows. --json/--ndjson for scripts.',
  );
  await tour.svc(['tenants', 'ls'], { tty: true });
  await tour.svc(['tenants', 'ls', '--tier', 'pro']);
  await tour.svc(['tenants', 'ls', '--limit', '2', '--json']);
  tour.say('Every bad input fails before any request, with a one-line error and a documented exit code:');
  await tour.svc(['tenants', 'ls', '--limit', '500'], { expect: 2 });
  await tour.svc(['tenants', 'ls', '--tenant', '00000000-0000-0000-0000-000000000000'], { expect: 4 });
  tour.say('And any endpoint is one `svc api` away, with the same auth, retries and idempotency keys:');
  await tour.svc(['api', 'GET', '/v1/tenants', '-f', 'subscription_tier=enterprise', '-F', 'limit=1']);
}

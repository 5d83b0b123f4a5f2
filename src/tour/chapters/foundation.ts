import type { Tour } from '../runner.js';

/** Log in with a token, and the output modes every command shares. */
export async function foundation(tour: Tour): Promise<void> {
  const { sandbox } = tour;
  tour.chapter('Point svc at the platform and log in');
  tour.say('A profile holds the base URL (and tenant, org); the credential goes to a separate 0600 file.');
  await tour.svc(['config', 'set', 'base_url', sandbox.url]);
  await tour.svc(['login', '--with-token'], { input: sandbox.adminToken, inputLabel: 'admin-token.txt' });

  tour.chapter('One command, four outputs');
  tour.say('On a terminal: a table that fits the width, with relative times.');
  await tour.svc(['tenants', 'ls'], { tty: true });
  tour.say('Piped output is tab-separated, for scripts: no header, every column, RFC 3339 times.');
  await tour.svc(['tenants', 'ls', '--tier', 'pro']);
  tour.say("--json prints the API's objects (an array, for every list); --ndjson one object per line.");
  await tour.svc(['tenants', 'ls', '--tier', 'pro', '--ndjson']);
  tour.say('A bad input fails before any request: one line, the fix, a documented exit code.');
  await tour.svc(['tenants', 'ls', '--limit', '0'], { expect: 2 });
}

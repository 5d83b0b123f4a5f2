import { dirname, join } from 'node:path';
import { writeConsentRobot } from '../consent-robot.js';
import type { Tour } from '../runner.js';

/** Issue 3: register an OAuth client, log in through the browser, and see scopes at work. */
export async function oauth(tour: Tour): Promise<void> {
  const { sandbox } = tour;
  const root = dirname(tour.configDir);
  const secretFile = join(root, 'vendor.secret');
  // Plays the person at the browser: loads the consent page and clicks Approve (as usr_admin).
  const browser = writeConsentRobot(root);

  tour.chapter('Log in through the browser (OAuth 2.0, PKCE)');
  tour.say(
    'svc login listens on 127.0.0.1 for one redirect, opens the consent page, and exchanges the code with a\n' +
      "PKCE verifier. The client is the sandbox's first-party one, svc-cli (`svc sandbox start` puts it in its\n" +
      'profile; this tour sets it once). Here a stand-in for you clicks Approve (SVC_BROWSER); run\n' +
      '`svc sandbox start` and `svc login` to see the consent page yourself.',
  );
  await tour.svc(['config', 'set', 'client_id', 'svc-cli']);
  await tour.svc(['login'], { env: { SVC_BROWSER: browser } });
  await tour.svc(['auth', 'status'], { tty: true });
  tour.say('Tokens refresh by themselves before they expire (and once after a 401), one process at a time.');

  tour.chapter('Register an OAuth client for an integration');
  tour.say('The secret is shown once; --secret-file keeps it out of the terminal, in a new 0600 file.');
  const created = await tour.svc(
    [
      'oauth',
      'create',
      '--name',
      'Vendor portal',
      '--redirect-uri',
      'https://vendor.example/callback',
      '--redirect-uri',
      'http://127.0.0.1/callback',
      '--scope',
      'read:reconciliations',
      '--scope',
      'read:exceptions',
      '--secret-file',
      secretFile,
    ],
    { tty: true },
  );
  const clientId = /cli_[0-9a-f]+/.exec(created.stdout)?.[0];
  if (!clientId) throw new Error('no client id in the output of svc oauth create');
  tour.say('Try the flow as the integration would, keeping its tokens in a profile of their own:');
  await tour.svc(
    [
      '-p',
      'vendor',
      '--base-url',
      sandbox.url,
      'oauth',
      'authorize',
      '--client-id',
      clientId,
      '--client-secret-file',
      secretFile,
      '--save',
      '--json',
    ],
    { env: { SVC_BROWSER: browser } },
  );
  tour.say('Its token reads reconciliations, but nothing its scopes do not cover:');
  await tour.svc(['-p', 'vendor', 'api', 'GET', '/v1/reconciliations']);
  await tour.svc(['-p', 'vendor', 'tenants', 'ls'], { expect: 4 });
}

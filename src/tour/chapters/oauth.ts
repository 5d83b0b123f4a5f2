import { dirname } from 'node:path';
import { writeConsentRobot } from '../consent-robot.js';
import type { Tour } from '../runner.js';

/** Browser login: authorization code + PKCE through a loopback redirect. */
export async function oauth(tour: Tour): Promise<void> {
  tour.chapter('Log in through the browser (OAuth 2.0 with PKCE)');
  tour.say(
    'svc opens the consent page and waits on 127.0.0.1 for the redirect. Here a stand-in clicks Approve;\n' +
      'over SSH, `svc login --no-browser` takes the pasted address instead, and `svc login --device` a code.\n' +
      "First the profile names the platform's OAuth client for svc (`svc sandbox start` sets it itself).",
  );
  // Plays the person at the browser: loads the consent page and approves as usr_admin.
  const browser = writeConsentRobot(dirname(tour.configDir));
  await tour.svc(['config', 'set', 'client_id', 'svc-cli']);
  await tour.svc(['login'], { env: { SVC_BROWSER: browser } });
}

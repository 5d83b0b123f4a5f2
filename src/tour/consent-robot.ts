import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in for a person at the browser, for the tour and the tests: run as SVC_BROWSER
 * (`node consent-robot.cjs`, svc adds the URL), it loads the sandbox's consent page, answers it
 * as SVC_ROBOT_USER (default usr_admin) with SVC_ROBOT_DECISION (approve, or deny), and follows
 * the redirect to svc's loopback callback — what a browser does when you click the button.
 */
export const CONSENT_ROBOT_SOURCE = `'use strict';
const url = process.argv[process.argv.length - 1];
(async () => {
  const page = await fetch(url, { redirect: 'manual' });
  let target = page.headers.get('location');
  if (page.status === 200) {
    const html = await page.text();
    const ticket = /name="ticket" value="([^"]+)"/.exec(html);
    if (!ticket) throw new Error('no consent form on ' + url);
    const answer = await fetch(new URL('authorize', url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ticket: ticket[1],
        user_id: process.env.SVC_ROBOT_USER || 'usr_admin',
        decision: process.env.SVC_ROBOT_DECISION || 'approve',
      }).toString(),
    });
    target = answer.headers.get('location');
  }
  if (target) await (await fetch(target)).text();
})().catch((error) => {
  process.stderr.write('consent robot: ' + error.message + '\\n');
  process.exitCode = 1;
});
`;

/** Writes the robot to `dir` and returns an SVC_BROWSER value that runs it. */
export function writeConsentRobot(dir: string): string {
  const file = join(dir, 'consent-robot.cjs');
  writeFileSync(file, CONSENT_ROBOT_SOURCE, { mode: 0o700 });
  return `"${process.execPath}" "${file}"`;
}

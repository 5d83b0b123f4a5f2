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
// node:http with an agent of its own, not fetch(): with NODE_USE_ENV_PROXY=1 (Node 24) fetch and
// http's global agent send every request through HTTP_PROXY, loopback included, and the consent
// page is always on this machine.
function send(target, options, body) {
  const to = new URL(target, url);
  const http = require(to.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve, reject) => {
    const request = http.request(to, { ...options, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, location: response.headers.location, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}
(async () => {
  const page = await send(url, { method: 'GET' });
  let target = page.location;
  if (page.status === 200) {
    const ticket = /name="ticket" value="([^"]+)"/.exec(page.text);
    if (!ticket) throw new Error('no consent form on ' + url);
    const answer = await send(
      new URL('authorize', url),
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      new URLSearchParams({
        ticket: ticket[1],
        user_id: process.env.SVC_ROBOT_USER || 'usr_admin',
        decision: process.env.SVC_ROBOT_DECISION || 'approve',
      }).toString(),
    );
    target = answer.location;
  }
  if (target) await send(target, { method: 'GET' });
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

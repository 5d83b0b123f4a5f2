/**
 * attack29b F4: a refresh refused because the server does not know the profile's client (the
 * client deleted, the platform's state reset) told the user to log in again with that same client
 * id; that login then waited on a browser page saying "Unknown client", with no warning, since
 * reading the client needed the profile's dead credential. In-process against a sandbox.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import type { Browser } from '../../../src/system/browser.js';
import { virtualClock } from '../../helpers/context.js';
import { consentBrowser, createClient } from '../../helpers/oauth.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-refresh-unknown-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const deadBrowser = (): Browser & { opened: string[] } => {
  const opened: string[] = [];
  return {
    opened,
    async open(url) {
      opened.push(url);
    },
  };
};

describe('a session whose OAuth client the server no longer knows', () => {
  it('the refresh says to check the client id; a login through it is warned before the browser opens', async () => {
    const made = await createClient(svc.sandbox());
    const id: string = made.client_id;
    const file = join(files, `${id}.secret`);
    writeFileSync(file, `${made.client_secret}\n`, { mode: 0o600 });
    const env = { SVC_TOKEN: undefined, SVC_TENANT: undefined, SVC_CONFIG_DIR: join(files, 'config') };
    const browser = consentBrowser();
    const login = await svc.run(['login', '-p', 'oc', '--client-id', id, '--client-secret-file', file], {
      env,
      browser,
      now: Date.now(),
    });
    await browser.settled();
    expect(login.code, login.stderr).toBe(0);
    // The access token due: the next command refreshes the session.
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    const stored = store.credential('oc')!;
    await store.setCredential('oc', { ...stored, expires_at: new Date(Date.now() - 60_000).toISOString() });
    const gone = await call(svc.sandbox(), 'DELETE', `/v1/oauth/clients/${id}`, {
      token: svc.sandbox().adminToken,
      tenant: ACME,
    });
    expect([200, 204]).toContain(gone.status);

    const hint = `the server does not know this client id, the profile's client_id (${id}): check it; log in through a client it knows: \`svc -p oc login --client-id CLIENT_ID\` (with its secret for a confidential client: --client-secret-file FILE)`;
    for (let run = 0; run < 2; run++) {
      // The refusal, then the refusal recorded on the credential: the same words.
      const me = await svc.run(['-p', 'oc', 'me'], { env, now: Date.now() });
      expect(me.code).toBe(3);
      expect(me.stderr).toBe(
        `error: the session of profile "oc" could not be refreshed: unknown client (invalid_client); ${hint}\n`,
      );
    }

    const dead = deadBrowser();
    const again = await svc.run(
      ['login', '-p', 'oc', '--client-id', id, '--client-secret-file', file, '--browser-timeout', '1'],
      { env, browser: dead, clock: virtualClock() },
    );
    expect(again.code).toBe(3);
    expect(again.stderr.split('\n')[0]).toBe(
      `warning: the server does not know OAuth client ${id}: it refused to refresh the session of profile "oc" through it as an unknown client; the login page will most likely say "Unknown client": check --client-id`,
    );
    expect(again.stderr).toContain(
      `error: timed out after 1 s waiting for the browser to finish the login; the server refused OAuth client ${id} as unknown: if the login page said "Unknown client", check --client-id; otherwise run the login again\n`,
    );
  });
});

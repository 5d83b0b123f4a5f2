/**
 * R3 (review16c): the F4 rule refused an exported SVC_APP_URL / SVC_CLIENT_ID only when the
 * profile held a value of its own; a profile whose app_url is derived from its base_url (the
 * usual case) got the leftover variable saved into it for good at login, without a word. An
 * exported value is used for that login only: the profile keeps deriving it.
 */
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { startInProcess, useFreshDirs } from '../../helpers/context.js';
import { consentBrowser } from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useFreshDirs();

describe('a browser login under an exported SVC_APP_URL or SVC_CLIENT_ID', () => {
  it('uses them for this login and saves neither into a profile that has none of its own', async () => {
    const env = dirs();
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    await store.setProfileValues('o2', { base_url: sandbox().url, tenant: 'acme-treasury' });
    const port = new URL(sandbox().url).port;
    const browser = consentBrowser();
    const live = startInProcess(
      ['-p', 'o2', 'login'],
      { ...env, SVC_APP_URL: `http://localhost:${port}`, SVC_CLIENT_ID: 'svc-cli' },
      { now: Date.now(), browser },
    );
    const r = await live.done;
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    // The login page was the exported one: it was used.
    expect(new URL(browser.opened[0]!).host).toBe(`localhost:${port}`);
    expect(store.profile('o2')).toEqual({ base_url: sandbox().url, tenant: 'acme-treasury' });
    expect(store.credential('o2')?.client_id).toBe('svc-cli');
  });
});

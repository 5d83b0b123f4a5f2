import { describe, expect, it } from 'vitest';
import { consentRobot, storedCredential } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const browser = consentRobot();
// Named at collection, made before the test and removed after the file (made in the test, its
// hooks never ran: the login made the directory and nothing removed it).
const dir = tempConfigDir();

// The tour's stand-in for a person at the browser talks to the sandbox on this machine. Node 24
// with NODE_USE_ENV_PROXY=1 sends fetch() through HTTP_PROXY even to loopback: with a proxy that
// is not there, the stand-in used to fail and `svc login` to wait for a callback that never came.
// (On Node 20, the first CI leg, the variable does nothing; the Node 24 leg is the one that bites.)
describe('the consent stand-in', () => {
  it('reaches the loopback sandbox directly whatever the proxy variables say', async () => {
    const r = await svc(['login'], {
      env: {
        SVC_CONFIG_DIR: dir,
        SVC_BASE_URL: sandbox().url,
        SVC_CLIENT_ID: 'svc-cli',
        SVC_BROWSER: browser,
        NODE_USE_ENV_PROXY: '1',
        HTTP_PROXY: 'http://127.0.0.1:9',
        http_proxy: 'http://127.0.0.1:9',
      },
      // A whole login through a browser, spawned: far above need on a loaded machine.
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(storedCredential(dir)).toMatchObject({ type: 'oauth', client_id: 'svc-cli' });
  });
});

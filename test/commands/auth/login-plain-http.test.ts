/**
 * F8 (findings-config16): `svc login` to a plain-http base URL (or app URL) that is not loopback
 * is refused before the login page is opened, with the message every other request gives: the
 * password would be typed into a page the login cannot finish with. --device too.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from '../../../src/system/browser.js';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';
import { answers, useHostileServer } from '../../helpers/hostile.js';

const dirs = useFreshDirs();
const REFUSED =
  'error: refusing to send a credential over plain HTTP to 192.0.2.2 (not a loopback address); use https, or pass --allow-insecure-http (SVC_ALLOW_INSECURE_HTTP=1) if you accept that anyone on the network path can read it\n';

function watchingBrowser(): Browser & { opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    async open(url) {
      opened.push(url);
    },
  };
}

describe('svc login to a plain-http server that is not loopback', () => {
  it.each([
    ['the base URL', ['login', '--base-url', 'http://192.0.2.2:9', '--client-id', 'svc-cli']],
    [
      'the base URL, --device',
      ['login', '--device', '--base-url', 'http://192.0.2.2:9', '--client-id', 'svc-cli'],
    ],
    [
      'the app URL (the password page)',
      [
        'login',
        '--base-url',
        'http://127.0.0.1:9',
        '--app-url',
        'http://192.0.2.2:9',
        '--client-id',
        'svc-cli',
      ],
    ],
  ])('%s: refused before any page is opened or request sent', async (_what, argv) => {
    const browser = watchingBrowser();
    const r = await runInProcess(argv, dirs(), { browser, stdin: '' });
    expect(r).toEqual({ code: 2, stdout: '', stderr: REFUSED });
    expect(browser.opened).toEqual([]);
  });
});

describe('svc login --device when the metadata names a plain-http device endpoint that is not loopback', () => {
  const server = useHostileServer();
  it('is refused as plain HTTP (exit 2, nothing sent there), not "does not offer device authorization"', async () => {
    const s = await server();
    s.answer(
      answers.json(200, { issuer: s.url, device_authorization_endpoint: 'http://192.0.2.2:9/device' }),
    );
    const r = await runInProcess(
      ['login', '--device', '--base-url', s.url, '--client-id', 'svc-cli'],
      dirs(),
      {
        stdin: '',
      },
    );
    expect(r).toEqual({ code: 2, stdout: '', stderr: REFUSED });
    expect(s.seen.map((seen) => seen.method)).toEqual(['GET']);
  });
});

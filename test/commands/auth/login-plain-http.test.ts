/**
 * F8 (findings-config16): `svc login` to a plain-http base URL (or app URL) that is not loopback
 * is refused before the login page is opened, with the message every other request gives: the
 * password would be typed into a page the login cannot finish with. --device too.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from '../../../src/system/browser.js';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';

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

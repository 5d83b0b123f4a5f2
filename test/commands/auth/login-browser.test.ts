/**
 * How `svc login` reaches the browser and what it says meanwhile, in-process against a sandbox:
 * the browser it opens (consentBrowser() approves and follows the redirect, or fails to start),
 * an SSH session where it opens none, the address pasted into a terminal, and a code the token
 * endpoint refuses. The same paths with a real Chromium and a real tmux terminal are in
 * test/e2e/login-browser.test.ts and test/e2e/login-ssh.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Browser } from '../../../src/system/browser.js';
import { startInProcess, useTempDirs } from '../../helpers/context.js';
import {
  AUTHORIZE_LINE,
  authorizationCode,
  connectionRefused,
  consent,
  consentBrowser,
  createClient,
  printedLogin,
  tokenRequests,
} from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = (extra: Record<string, string> = {}) => ({
  ...dirs(),
  SVC_BASE_URL: sandbox().url,
  SVC_CLIENT_ID: 'svc-cli',
  ...extra,
});

/** The authorization URL in `text` (svc prints it on its own line, indented). */
function printedUrl(text: string): string {
  const url = AUTHORIZE_LINE.exec(text)?.[1];
  if (!url) throw new Error(`no authorization URL in:\n${text}`);
  return url;
}
const redirectOf = (url: string) => new URL(url).searchParams.get('redirect_uri') as string;

function loggedIn(): string {
  return (
    `✓ logged in to ${sandbox().url} as Ada Admin (profile "default")\n` +
    '  scopes: read:reconciliations read:exceptions read:tenants admin; the access token expires in 60 minutes (refreshed automatically)\n'
  );
}

/** Said after a login into the profile that held a session already (the earlier tests' logins). */
const revokedPrevious = () => `revoked the previous session of profile "default" at ${sandbox().url}\n`;

describe('svc login: the browser', () => {
  it('opens the login page, says where it waits, and logs in once the browser comes back', async () => {
    const browser = consentBrowser();
    const live = startInProcess(['login'], env(), { now: Date.now(), browser });
    const result = await live.done;
    await browser.settled();
    expect(browser.opened).toHaveLength(1);
    const url = browser.opened[0] as string;
    // No --scope: the server grants the client's default scopes, so none is asked for.
    expect(new URL(url).searchParams.has('scope')).toBe(false);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `opening the login page in your browser; if it does not open, visit:\n  ${url}\n` +
        `waiting for the browser on ${redirectOf(url)} (up to 5 minutes; Ctrl-C to cancel)…\n${loggedIn()}`,
    });
  });

  // attack25a F9: said after the wait, it came minutes late; the login then goes unused in this shell.
  it('with SVC_TOKEN set: warns before the page is opened, once', async () => {
    const browser = consentBrowser();
    const live = startInProcess(['login'], env({ SVC_TOKEN: sandbox().adminToken }), {
      now: Date.now(),
      browser,
    });
    const result = await live.done;
    await browser.settled();
    expect(result.code, result.stderr).toBe(0);
    const warning =
      'warning: SVC_TOKEN is set and overrides the stored credential: this shell goes on using it after the login (unset SVC_TOKEN to use the login)\n';
    expect(result.stderr.startsWith(`${warning}opening the login page`), result.stderr).toBe(true);
    expect(result.stderr.split(warning)).toHaveLength(2);
  });

  // review28c F4: svc-cli is public; a secret sent for it failed the login after consent (exit 3).
  it('with SVC_CLIENT_SECRET set and svc-cli: sends no secret, says so once, and logs in', async () => {
    const browser = consentBrowser();
    const live = startInProcess(['login'], env({ SVC_CLIENT_SECRET: 'left-over-vendor-secret' }), {
      now: Date.now(),
      browser,
    });
    const result = await live.done;
    await browser.settled();
    expect(result.code, result.stderr).toBe(0);
    const warning =
      "warning: SVC_CLIENT_SECRET is set but not sent: svc-cli is svc's own public client (it proves itself with PKCE); unset SVC_CLIENT_SECRET unless another client needs it\n";
    expect(result.stderr.startsWith(`${warning}opening the login page`), result.stderr).toBe(true);
    expect(result.stderr.split(warning)).toHaveLength(2);
    expect(result.stderr).toContain(loggedIn());
  });

  it('with SVC_CLIENT_SECRET set, svc login --device through svc-cli logs in too', async () => {
    sandbox().state.oauth.devices.intervalSeconds = 1;
    const browser = consentBrowser();
    const live = startInProcess(
      ['login', '--device'],
      env({ SVC_CLIENT_SECRET: 'left-over-vendor-secret' }),
      { now: Date.now(), browser },
    );
    const [, complete] = await live.waitForStderr(/^\(or open (http\S+user_code=\S+)\)$/m);
    await consent(complete!);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^warning: SVC_CLIENT_SECRET is set but not sent: svc-cli /);
  });

  // review28e L5: stored, it was never sent at refresh or revocation; sent, the sandbox refuses it.
  it('svc-cli with --client-secret-file: exit 2 before the page opens, the profile untouched', async () => {
    const browser = consentBrowser();
    const credentials = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
    const before = existsSync(credentials) ? readFileSync(credentials, 'utf8') : undefined;
    const file = `${dirs().SVC_CONFIG_DIR}.secret`;
    writeFileSync(file, 'a-secret-for-svc-cli\n', { mode: 0o600 });
    const live = startInProcess(['login', '--client-secret-file', file], env(), { now: Date.now(), browser });
    const result = await live.done;
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: svc-cli is svc's own public client and takes no client secret (it proves itself with PKCE; a secret sent for it is refused with invalid_client): leave out --client-secret-file" +
        "; if this server registered svc-cli as confidential, log in with `svc login --with-token`, or pass --client-id of a client it registered for you, with that client's secret\n",
    });
    expect(browser.opened).toEqual([]);
    expect(existsSync(credentials) ? readFileSync(credentials, 'utf8') : undefined).toBe(before);
  });

  it('asks for the scopes given with --scope, space-separated', async () => {
    const browser = consentBrowser();
    const live = startInProcess(['login', '--scope', 'read:tenants', '--scope', 'admin'], env(), {
      now: Date.now(),
      browser,
    });
    const result = await live.done;
    await browser.settled();
    expect(result.code, result.stderr).toBe(0);
    expect(new URL(browser.opened[0] as string).searchParams.get('scope')).toBe('read:tenants admin');
  });

  it('says so when the browser cannot be started, and still logs in from the printed URL', async () => {
    const failing: Browser = {
      open: async () => {
        throw new Error('no display');
      },
    };
    const live = startInProcess(['login'], env(), { now: Date.now(), browser: failing });
    const { url } = await printedLogin(live);
    const { location } = await consent(url);
    await (await fetch(location as URL)).text();
    const result = await live.done;
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `opening the login page in your browser; if it does not open, visit:\n  ${url}\n` +
        'warning: could not open a browser (no display); open the URL above yourself\n' +
        `waiting for the browser on ${redirectOf(url)} (up to 5 minutes; Ctrl-C to cancel)…\n${loggedIn()}${revokedPrevious()}`,
    });
  });

  it.each([
    ['SSH_CONNECTION', '10.0.0.2 50022 10.0.0.1 22'],
    ['SSH_TTY', '/dev/pts/3'],
    ['SSH_CLIENT', '10.0.0.2 50022 22'],
  ])(
    'opens no browser in an SSH session (%s set): the URL is for a browser anywhere',
    async (name, value) => {
      const browser = consentBrowser();
      const live = startInProcess(['login'], env({ [name]: value }), { now: Date.now(), browser });
      const { url } = await printedLogin(live);
      expect(browser.opened).toEqual([]);
      expect(live.stderr()).toBe(
        `an SSH session (${name} is set): svc does not open a browser on this machine\n` +
          `open this URL in a browser, on this machine or any other, to log in:\n  ${url}\n` +
          `waiting for the browser on ${redirectOf(url)} (up to 5 minutes; Ctrl-C to cancel)…\n`,
      );
      live.interrupt();
      expect((await live.done).code).toBe(130);
    },
  );

  it.each([
    ['SVC_BROWSER', 'firefox'],
    ['BROWSER', 'xdg-open'],
  ])('opens the browser %s names, even in an SSH session', async (name, value) => {
    const browser = consentBrowser();
    const live = startInProcess(
      ['login'],
      env({ SSH_CONNECTION: '10.0.0.2 50022 10.0.0.1 22', [name]: value }),
      {
        now: Date.now(),
        browser,
      },
    );
    const result = await live.done;
    await browser.settled();
    expect(browser.opened).toHaveLength(1);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('SSH session');
  });

  it('with --no-browser in an SSH session, only prints the URL (the session is not mentioned)', async () => {
    const browser = consentBrowser();
    const live = startInProcess(['login', '--no-browser'], env({ SSH_TTY: '/dev/pts/3' }), {
      now: Date.now(),
      browser,
    });
    const { url } = await printedLogin(live);
    expect(live.stderr()).toBe(
      `open this URL in a browser, on this machine or any other, to log in:\n  ${url}\n` +
        `waiting for the browser on ${redirectOf(url)} (up to 5 minutes; Ctrl-C to cancel)…\n`,
    );
    expect(browser.opened).toEqual([]);
    live.interrupt();
    expect((await live.done).code).toBe(130);
  });

  it.each([
    ['60', '1 minute'],
    ['120', '2 minutes'],
    ['90', '90 s'],
    ['1', '1 s'],
  ])('--browser-timeout %s is said as "up to %s"', async (seconds, said) => {
    const live = startInProcess(['login', '--no-browser', '--browser-timeout', seconds], env(), {
      now: Date.now(),
    });
    const [line] = await live.waitForStderr(/^waiting for the browser on .*$/m);
    expect(line).toMatch(
      new RegExp(`^waiting for the browser on \\S+ \\(up to ${said}; Ctrl-C to cancel\\)…$`),
    );
    live.interrupt();
    expect((await live.done).code).toBe(130);
  });
});

describe('svc login: the address pasted into the terminal', () => {
  /** `svc login --no-browser` with a terminal on stdin the test types into, once it asks for the address. */
  async function pasting() {
    const stdin = new PassThrough();
    const live = startInProcess(['login', '--no-browser'], env(), {
      now: Date.now(),
      stdin,
      tty: { stdin: true },
    });
    await live.waitForStderr(/Paste the address here: $/);
    return { stdin, live };
  }

  it('takes the address the browser ended on, after turning away what is not it; one token request', async () => {
    const before = await tokenRequests(sandbox());
    const { stdin, live } = await pasting();
    const url = printedUrl(live.stderr());
    const redirect = redirectOf(url);
    expect(live.stderr()).toBe(
      `open this URL in a browser, on this machine or any other, to log in:\n  ${url}\n` +
        `when you approve, the browser goes to ${redirect}?…: on this machine that finishes the login; ` +
        'on another one the page cannot be reached — copy its address from the address bar and paste it here ' +
        '(up to 5 minutes; Ctrl-C to cancel)\nPaste the address here: ',
    );
    const { location } = await consent(url);
    stdin.write('not an address\n');
    await live.waitForStderr(/that is not an address[^\n]*\nPaste the address here: $/);
    stdin.write(`${location}\n`);
    const result = await live.done;
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: expect.stringMatching(
        /Paste the address here: warning: that is not an address; copy the whole address from the browser\nPaste the address here: ✓ logged in to /,
      ),
    });
    expect(result.stderr.endsWith(`${loggedIn()}${revokedPrevious()}`)).toBe(true);
    expect(await tokenRequests(sandbox())).toBe(before + 1);
    // The loopback stopped listening once the pasted address finished the login.
    expect(await connectionRefused(Number(new URL(redirect).port))).toBe(true);
  });

  it('stops reading the terminal when the browser finishes the login first', async () => {
    const { stdin, live } = await pasting();
    expect(stdin.listenerCount('data')).toBeGreaterThan(0);
    const { location } = await consent(printedUrl(live.stderr()));
    await (await fetch(location as URL)).text();
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    // Nothing is left reading: in a terminal, a reader left behind would keep svc from exiting.
    expect(stdin.listenerCount('data')).toBe(0);
  });
});

describe('svc login: a code the token endpoint refuses (exit 3)', () => {
  it('a confidential client without its secret: the hint names the three ways to give it', async () => {
    const client = await createClient(sandbox());
    const browser = consentBrowser();
    const live = startInProcess(['login', '--client-id', client.client_id], env(), {
      now: Date.now(),
      browser,
    });
    const result = await live.done;
    await browser.settled();
    expect([result.code, result.stdout]).toEqual([3, '']);
    expect(result.stderr.split('\n').at(-2)).toBe(
      'error: the authorization code could not be exchanged for tokens: this client must authenticate with its client_secret (invalid_client); ' +
        'a confidential client needs its secret: --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET',
    );
  });

  it('a code issued to another login: run the login again; neither code nor verifier is printed', async () => {
    const foreign = await authorizationCode(sandbox(), { client_id: 'svc-cli' });
    const live = startInProcess(['login', '--no-browser'], env(), { now: Date.now() });
    const { redirectUri: callback, state } = await printedLogin(live);
    callback.searchParams.set('code', foreign.code);
    callback.searchParams.set('state', state);
    callback.searchParams.set('iss', sandbox().url);
    await (await fetch(callback)).text();
    const result = await live.done;
    expect([result.code, result.stdout]).toEqual([3, '']);
    expect(result.stderr.split('\n').at(-2)).toMatch(
      /^error: the authorization code could not be exchanged for tokens: .+ \(invalid_grant\); run the login again$/,
    );
    expect(result.stderr).not.toContain(foreign.code);
  });
});

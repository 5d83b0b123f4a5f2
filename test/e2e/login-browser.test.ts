import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useChromium } from '../helpers/chromium.js';
import { needs } from '../helpers/needs.js';
import { printedLogin, spawnSvc } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

/**
 * `svc login` against the sandbox with a real browser: Debian's Chromium, driven by
 * playwright-core, opens the consent page and clicks Approve or Deny. Without Chromium these
 * tests are skipped with a note (test/helpers/needs.ts); under CI=true they fail (.ci/run installs it).
 */

const sandbox = useSandbox();
const dir = tempConfigDir();

needs('chromium').describe('svc login with a real browser', () => {
  const browser = useChromium();

  it('opens the consent page through SVC_BROWSER, Approve logs in, and the profile calls svc me', async () => {
    const urlFile = join(dir, '..', 'opened-url');
    const env = {
      SVC_CONFIG_DIR: dir,
      SVC_BASE_URL: sandbox().url,
      SVC_CLIENT_ID: 'svc-cli',
      URL_FILE: urlFile,
      // The "browser" svc runs: it records the URL for Chromium to open.
      SVC_BROWSER: `"${process.execPath}" -e "require('fs').writeFileSync(process.env.URL_FILE, process.argv[1])"`,
    };
    const live = spawnSvc(['login'], env);
    await live.waitForStderr(/waiting for the browser/);
    expect(live.stderr()).toContain('opening the login page in your browser; if it does not open, visit:');
    // The "browser" is a process of its own: read what it wrote once it has written it (the file
    // exists, empty, before its one write), with a bound far above need.
    const written = () => (existsSync(urlFile) ? readFileSync(urlFile, 'utf8') : '');
    await expect.poll(written, { timeout: 30_000 }).not.toBe('');
    const url = written();
    expect(url).toBe((await printedLogin(live)).url);

    const page = await browser().newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).origin));
    await page.goto(url);
    await expect.poll(() => page.textContent('h1')).toBe('Authorize svc CLI');
    expect(await page.textContent('#tenant')).toBe('every tenant you belong to');
    expect(await page.textContent('#scopes')).toContain('admin');
    await page.fill('input[name="user_id"]', 'usr_analyst');
    await page.click('button[value="approve"]');
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await page.textContent('h1')).toBe('Logged in');
    await page.close();

    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /✓ logged in to http:\/\/127\.0\.0\.1:\d+ as Analyst User \(profile "default"\)/,
    );
    const loopback = new URL(new URL(url).searchParams.get('redirect_uri')!).origin;
    expect(new Set(requested)).toEqual(new Set([sandbox().url, loopback]));

    const me = await svc(['me'], { env: { SVC_CONFIG_DIR: dir } });
    expect(me.code, me.stderr).toBe(0);
    expect(me.stdout).toContain('id\tusr_analyst\n');
    expect(me.stdout).toContain('credential\toauth_access_token\n');
    expect(me.stdout).toContain('scopes\tread:reconciliations read:exceptions read:tenants admin\n');
  });

  it('Deny ends the login with exit 3 and a clear message, and stores nothing', async () => {
    const before = readFileSync(join(dir, 'credentials.json'), 'utf8');
    const live = spawnSvc(['login', '--no-browser'], {
      SVC_CONFIG_DIR: dir,
      SVC_BASE_URL: sandbox().url,
      SVC_CLIENT_ID: 'svc-cli',
    });
    const { url } = await printedLogin(live);
    const page = await browser().newPage();
    await page.goto(url);
    await page.click('button[value="deny"]');
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await page.textContent('h1')).toBe('Login failed');
    expect(await page.textContent('p')).toContain('You denied the request.');
    await page.close();
    const result = await live.done;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: authorization was denied: access_denied \(the user denied the request\); run the login again and choose Approve$/m,
    );
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(before);
  });
});

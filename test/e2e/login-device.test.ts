/**
 * `svc login --device` (RFC 8628) completed in a real browser: Debian's Chromium, driven by
 * playwright-core, opens the verification page, types the code svc printed, and approves as a
 * user found by typing into the consent page's field. Under CI=true a missing Chromium fails these
 * tests (.ci/run installs it); elsewhere they are skipped.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSvc, storedCredential } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const browserIt = available || process.env.CI === 'true' ? it : it.skip;

const sandbox = useSandbox();
const dir = tempConfigDir();
let userDataDir: string;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  if (!available && process.env.CI !== 'true') return;
  userDataDir = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

const env = () => ({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url, SVC_CLIENT_ID: 'svc-cli' });

describe('svc login --device', () => {
  browserIt(
    'prints a page and a code; the code typed in a browser anywhere, Approve logs in',
    async () => {
      const live = spawnSvc(['login', '--device'], env());
      const [, page, code] = await live.waitForStderr(
        /^ {2}(http\S+\/oauth\/device)\nand enter the code {2}([A-Z]{4}-[A-Z]{4})$/m,
      );
      await live.waitForStderr(/Waiting for approval \(the code expires in 10 minutes; Ctrl-C to cancel\)…/);

      const tab = await browser!.newPage();
      await tab.goto(page!);
      await tab.fill('input[name="user_code"]', code!.toLowerCase());
      await tab.click('button[type="submit"]');
      await expect.poll(() => tab.textContent('h1')).toBe('Authorize svc CLI');
      expect(await tab.textContent('#scopes')).toContain('admin');
      // The consent page suggests users as you type (the ten seeded ones who hold a role) and finds
      // one by email on the server.
      expect(await tab.locator('datalist#users option').count()).toBe(10);
      await tab.fill('input[name="user_id"]', 'auditor@acme.example');
      await tab.click('button[value="approve"]');
      await expect.poll(() => tab.textContent('h1')).toBe('Device connected');
      await tab.close();

      const result = await live.done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /✓ Logged in to http:\/\/127\.0\.0\.1:\d+ as Auditor User \(profile "default"\)/,
      );
      expect(storedCredential(dir)).toMatchObject({
        type: 'oauth',
        client_id: 'svc-cli',
        refresh_token: expect.any(String),
      });
      const me = await svc(['me'], { env: { SVC_CONFIG_DIR: dir } });
      expect(me.stdout).toContain('id\tusr_auditor\n');
    },
    60_000,
  );

  browserIt(
    'Deny ends the login with exit 3 and stores nothing new',
    async () => {
      const live = spawnSvc(['login', '--device', '--json'], {
        ...env(),
        SVC_CONFIG_DIR: join(dir, '..', 'denied'),
      });
      const [, complete] = await live.waitForStderr(/^\(or open (http\S+user_code=\S+)\)$/m);
      const tab = await browser!.newPage();
      await tab.goto(complete!);
      await tab.click('button[value="deny"]');
      await expect.poll(() => tab.textContent('h1')).toBe('Request denied');
      await tab.close();
      const result = await live.done;
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(
        '{"error":{"code":"access_denied","message":"authorization was denied: access_denied","exit_code":3,"hint":"run the login again and choose Approve"}}',
      );
    },
    60_000,
  );
});

import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { useChromium } from '../helpers/chromium.js';
import { needs } from '../helpers/needs.js';
import { spawnSvc, storedCredential } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const dir = tempConfigDir();
beforeAll(() => {
  // svc waits the interval the server gives before each poll (2 s): 1 s here halves the wait.
  sandbox().state.oauth.devices.intervalSeconds = 1;
});

const env = () => ({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url, SVC_CLIENT_ID: 'svc-cli' });

needs('chromium').describe('svc login --device', () => {
  const browser = useChromium();

  it('prints a page and a code; the code typed in a browser anywhere, Approve logs in', async () => {
    const live = spawnSvc(['login', '--device'], env());
    const [, page, code] = await live.waitForStderr(
      /^ {2}(http\S+\/oauth\/device)\nand enter the code {2}([A-Z]{4}-[A-Z]{4})$/m,
    );
    await live.waitForStderr(/waiting for approval \(the code expires in 10 minutes; Ctrl-C to cancel\)…/);

    const tab = await browser().newPage();
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
      /✓ logged in to http:\/\/127\.0\.0\.1:\d+ as Auditor User \(profile "default"\)/,
    );
    expect(storedCredential(dir)).toMatchObject({
      type: 'oauth',
      client_id: 'svc-cli',
      refresh_token: expect.any(String),
    });
    const me = await svc(['me'], { env: { SVC_CONFIG_DIR: dir } });
    expect(me.stdout).toContain('id\tusr_auditor\n');
  }, 60_000);

  it('Deny ends the login with exit 3 and stores nothing new', async () => {
    const live = spawnSvc(['login', '--device', '--json'], {
      ...env(),
      SVC_CONFIG_DIR: join(dir, '..', 'denied'),
    });
    const [, complete] = await live.waitForStderr(/^\(or open (http\S+user_code=\S+)\)$/m);
    const tab = await browser().newPage();
    await tab.goto(complete!);
    await tab.click('button[value="deny"]');
    await expect.poll(() => tab.textContent('h1')).toBe('Request denied');
    await tab.close();
    const result = await live.done;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      '{"error":{"code":"authorization_denied","message":"authorization was denied: access_denied","exit_code":3,"hint":"run the login again and choose Approve","server_code":"access_denied"}}',
    );
  }, 60_000);
});

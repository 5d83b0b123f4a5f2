import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { requiredTool } from './needs.js';

/**
 * Debian's Chromium (found on PATH; playwright-core never downloads a browser), headless, with a
 * private profile, for the tests of one `needs('chromium').describe(...)` block: started before
 * them, closed and removed after them.
 */
export function useChromium(): () => BrowserContext {
  let userDataDir: string | undefined;
  let browser: BrowserContext | undefined;
  beforeAll(async () => {
    userDataDir = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: requiredTool('chromium'),
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
  return () => {
    if (!browser) throw new Error('chromium not started');
    return browser;
  };
}

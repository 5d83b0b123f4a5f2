/**
 * The browser svc starts (SVC_BROWSER / BROWSER) gets svc's environment without its secrets:
 * SVC_TOKEN, SVC_CLIENT_SECRET and SVC_WEBHOOK_SECRET (review s14, secrets 7).
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { systemBrowser } from '../../src/system/browser.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-browser-env-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the browser svc starts', () => {
  it('is started without SVC_TOKEN, SVC_CLIENT_SECRET and SVC_WEBHOOK_SECRET, with the rest', async () => {
    const log = join(dir, 'env.txt');
    const script = join(dir, 'browser.sh');
    writeFileSync(
      script,
      `#!/bin/sh\nenv > '${log}.tmp'\necho "ARGV: $1" >> '${log}.tmp'\nmv '${log}.tmp' '${log}'\n`,
    );
    chmodSync(script, 0o755);
    // As in the binary, svc's environment is process.env.
    const set: Record<string, string> = {
      SVC_BROWSER: script,
      SVC_TOKEN: 'svc_sk_browserEnvToken0123456789',
      SVC_CLIENT_SECRET: 'svc_cs_browserEnvSecret0123456789',
      SVC_WEBHOOK_SECRET: 'whsec_browserEnvWebhook0123456789',
      SVC_TENANT: 'acme',
      KEEP_ME: 'kept',
    };
    const before = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
    Object.assign(process.env, set);
    try {
      await systemBrowser(process.env).open('http://127.0.0.1:1/authorize?x=1');
    } finally {
      for (const [k, v] of Object.entries(before)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    for (let i = 0; i < 200 && !existsSync(log); i++) await sleep(25);
    const env = readFileSync(log, 'utf8');
    expect(env).toContain('KEEP_ME=kept\n');
    expect(env).toContain('SVC_TENANT=acme\n');
    expect(env).toContain('ARGV: http://127.0.0.1:1/authorize?x=1\n');
    expect(env).not.toMatch(/SVC_TOKEN|SVC_CLIENT_SECRET|SVC_WEBHOOK_SECRET|browserEnv/);
  });
});

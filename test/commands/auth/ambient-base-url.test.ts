/**
 * F4 (findings-config16): an exported SVC_BASE_URL (or SVC_APP_URL, SVC_CLIENT_ID) that differs
 * from a named profile's own value never silently becomes that profile's for good at `svc -p NAME
 * login`: refused (exit 2) before anything is sent or saved, naming both values and how to choose;
 * --base-url moves the profile on purpose, and the success line names the server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const STAGING = 'http://127.0.0.1:9';
const store = () => new ConfigStore(svc.env().SVC_CONFIG_DIR!);
const stored = { SVC_TOKEN: undefined, SVC_TENANT: undefined };

describe('a login under an exported SVC_BASE_URL', () => {
  it('is refused when it differs from the profile’s base_url; the profile keeps its server and no credential is stored', async () => {
    await store().setProfileValues('stg2', { base_url: STAGING });
    const prod = svc.sandbox().url;
    const r = await svc.run(['-p', 'stg2', 'login', '--with-token'], {
      env: stored,
      stdin: `${svc.sandbox().adminToken}\n`,
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: SVC_BASE_URL (${prod}) differs from profile "stg2"'s base_url (${STAGING}); svc did not log in or change the profile; unset SVC_BASE_URL to log in with ${STAGING}, or pass \`--base-url ${prod}\` to save ${prod} in profile "stg2" instead\n`,
    });
    expect(store().profile('stg2')).toEqual({ base_url: STAGING });
    expect(store().credential('stg2')).toBeUndefined();
    // The browser login too, before any page is opened.
    const browser = await svc.run(['-p', 'stg2', 'login', '--no-browser', '--client-id', 'svc-cli'], {
      env: stored,
    });
    expect(browser.code).toBe(2);
    expect(browser.stderr).toContain(`error: SVC_BASE_URL (${prod}) differs from profile "stg2"'s base_url`);
    expect(store().profile('stg2')).toEqual({ base_url: STAGING });
  });

  it('goes ahead when the value is the profile’s own, or when --base-url moves the profile on purpose', async () => {
    const prod = svc.sandbox().url;
    await store().setProfileValues('stg3', { base_url: STAGING });
    const moved = await svc.run(['-p', 'stg3', 'login', '--base-url', prod, '--with-token'], {
      env: stored,
      stdin: `${svc.sandbox().adminToken}\n`,
    });
    expect(moved).toMatchObject({
      code: 0,
      stderr: `✓ logged in to ${prod} as Ada Admin (profile "stg3")\n`,
    });
    expect(store().profile('stg3')?.base_url).toBe(prod);
    const same = await svc.run(['-p', 'stg3', 'login', '--with-token'], {
      env: stored,
      stdin: `${svc.sandbox().adminToken}\n`,
    });
    expect(same.code).toBe(0);
    expect(
      JSON.parse(readFileSync(join(svc.env().SVC_CONFIG_DIR!, 'config.json'), 'utf8')).profiles.stg3.base_url,
    ).toBe(prod);
  });
});

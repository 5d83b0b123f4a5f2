/**
 * review14 R5: with no profile active while another exists (after `svc profiles rm <active>`),
 * SVC_TOKEN + SVC_BASE_URL + SVC_TENANT still run every command: only the commands that read or
 * write a profile's own settings (config get/set/unset/ls) need one. The s14 fix of F7.4 refused
 * bulk role runs, replay/discard dry runs and `auth status`/`auth token` too ("no profile is
 * active", exit 5), which worked before.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('env-only use with no active profile while another exists', () => {
  it.each([
    [['roles', 'assign', '--file', 'FILE', '--dry-run'], 0],
    [['auth', 'token'], 0],
    [['auth', 'status'], 0],
    [['config', 'get', 'tenant'], 5],
  ])('svc %j exits %i', async (argv, code) => {
    const env = svc.env();
    mkdirSync(env.SVC_CONFIG_DIR!, { recursive: true });
    writeFileSync(
      join(env.SVC_CONFIG_DIR!, 'config.json'),
      JSON.stringify({ profiles: { staging: { base_url: 'https://staging.example.com' } } }),
    );
    const file = join(env.SVC_CONFIG_DIR!, 'grants.csv');
    writeFileSync(file, 'user,role,expires_in,justification\nusr_viewer,tenant_viewer,1h,on call\n');
    const result = await svc.run(argv.map((a) => (a === 'FILE' ? file : a)));
    expect(result.code, result.stderr).toBe(code);
    if (code === 0) expect(result.stderr).not.toContain('no profile is active');
    else
      expect(result.stderr).toBe(
        'error: no profile is active; choose one with `svc profiles use NAME` (yours: staging)\n',
      );
  });
});

/**
 * F6 (findings-config16): `profiles show` and `profiles ls` print stored values; when SVC_BASE_URL,
 * SVC_TENANT (or their flags) override them for every command in this shell, one line on stderr
 * says so, as `config ls` shows each value's source.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs();

describe('profiles show / ls under an overriding environment', () => {
  it('say which stored values SVC_BASE_URL and SVC_TENANT override here; nothing when none does', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({
        active_profile: 'prod',
        profiles: { prod: { base_url: 'http://127.0.0.1:8', tenant: 'acme-treasury' } },
      }),
    );
    const over = { ...env, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TENANT: 'acme-apac' };
    const note =
      'SVC_BASE_URL=http://127.0.0.1:9, SVC_TENANT=acme-apac override the stored value of every profile shown, for commands run here\n';
    for (const argv of [
      ['profiles', 'show', 'prod'],
      ['profiles', 'ls'],
    ]) {
      const r = await runInProcess(argv, over);
      expect([r.code, r.stderr]).toEqual([0, note]);
      expect(r.stdout).toContain('http://127.0.0.1:8');
      const plain = await runInProcess(argv, env);
      expect([plain.code, plain.stderr]).toEqual([0, '']);
    }
  });
});

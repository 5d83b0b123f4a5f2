import { rmSync } from 'node:fs';
import { beforeEach } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess, useTempDirs } from './context.js';

export const TOKEN = 'svc_pk_0123456789abcdefWXYZ';

/**
 * Temporary config directories for the tests of one file, holding before each test two
 * profiles: "default" (active; base_url, tenant t-123 and a stored API key) and "staging"
 * (base_url only). Returns the environment to run svc with.
 */
export function useTwoProfiles(): () => Record<string, string> {
  const dirs = useTempDirs();
  const env = () => ({ ...dirs(), NO_COLOR: '1' });
  beforeEach(async () => {
    rmSync(dirs().SVC_CONFIG_DIR, { recursive: true, force: true });
    for (const argv of [
      ['config', 'set', 'base_url', 'https://api.example.com'],
      ['config', 'set', 'tenant', 't-123'],
      ['-p', 'staging', 'config', 'set', 'base_url', 'https://staging.example'],
    ]) {
      const { code, stderr } = await runInProcess(argv, env());
      if (code !== 0) throw new Error(`setting up profiles: ${stderr}`);
    }
    await new ConfigStore(dirs().SVC_CONFIG_DIR).setCredential('default', {
      type: 'token',
      access_token: TOKEN,
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
  });
  return env;
}

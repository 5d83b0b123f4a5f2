/**
 * review18b R11: `tenants api-keys create --idempotency-key K` checks the key it was answered
 * against the tenant's key list (the platform has no GET of one key). It read the first page only:
 * on a server that pages that list oldest first, the key this very command made was "deleted now",
 * exit 5, and the live key was neither printed nor written — lost. Every page is read.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-keys-paged-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The key list answered oldest first, two a page (the rest after cursor "p2"). */
const oldestFirstByTwo = (answer: Reshaped): void => {
  if (answer.method !== 'GET' || !/\/api-keys(\?|$)/.test(answer.path)) return;
  const body = answer.body as { items: Array<{ created_at: string; id: string }> };
  const all = [...body.items].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  const second = new URLSearchParams(answer.path.split('?')[1] ?? '').get('cursor') === 'p2';
  answer.body = second
    ? { items: all.slice(2), next_cursor: null }
    : { items: all.slice(0, 2), next_cursor: 'p2' };
};

describe('tenants api-keys create under the user’s own key, the list paged oldest first', () => {
  it('finds the key it made on a later page: written, exit 0', async () => {
    const tenant = ACME;
    for (const name of ['k1', 'k2', 'k3']) {
      const r = await svc.run([
        'tenants',
        'api-keys',
        'create',
        tenant,
        '--kind',
        'publishable',
        '--name',
        name,
        '--show-secret',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    proxy().set({
      reshape: oldestFirstByTwo,
      path: (method, path) =>
        method === 'GET' ? path.replace(/([?&])cursor=p2&?/, '$1').replace(/[?&]$/, '') : path,
    });
    const file = join(dir, 'k4.secret');
    const r = await svc.run(
      ['tenants', 'api-keys', 'create', tenant, '--kind', 'publishable', '--name', 'k4'].concat([
        '--idempotency-key',
        `paged-k4-${Date.now()}`,
        '--secret-file',
        file,
      ]),
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file) && readFileSync(file, 'utf8').startsWith('svc_pk_')).toBe(true);
  });
});

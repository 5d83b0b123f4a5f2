import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type PlanDocument, planDigest } from '../../../src/ascode/plan.js';
import { APAC, as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// truth22 4: a plan an older svc kept beside its journal (before session 21) has no `expires_in`
// per grant. A grant of the file's `expires_in: 1h` made meanwhile by another run, counted from
// its own second, then read as drift: every `svc apply -f` of the file exit 6, "the live state
// changed". The file is the same bytes (its sha256 is the journal's identity), so its entries say
// what the older svc meant: each grant's span is read back from its entry, and the grant made
// meanwhile is the change made.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-older-kept-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

let refuseOnce = false;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    if (!refuseOnce || method !== 'POST' || path !== `/v1/users/${user(5)}/roles`) return undefined;
    refuseOnce = false;
    return refusal(503, 'unavailable');
  },
});

/** The kept plan as an older svc wrote it: no `expires_in` on its grants, its digests made again. */
function asOlderSvcKeptIt(journal: string): void {
  const kept = `${journal}.plan.json`;
  const doc = JSON.parse(readFileSync(kept, 'utf8')) as PlanDocument;
  for (const tenant of doc.tenants) for (const change of tenant.changes) delete change.grant?.expires_in;
  doc.digest = planDigest(doc);
  const bytes = JSON.stringify(doc);
  writeFileSync(kept, bytes);
  const [first, ...rest] = readFileSync(journal, 'utf8').split('\n');
  const header = JSON.parse(first!);
  header.kept['.plan.json'] = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(journal, [JSON.stringify(header), ...rest].join('\n'));
}

describe("svc apply -f with an older svc's kept plan", () => {
  it('a grant of its expires_in made meanwhile by another run is the change made: exit 0, never drift', async () => {
    const journal = join(dir, 'older.ndjson');
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    const file = writeFile(
      dir,
      'older.yaml',
      `version: 1\nblocks:\n  - tenants: acme-apac\n    grants:\n      - users: [${user(5)}, ${user(6)}]\n        role: tenant_viewer\n        expires_in: 1h\n        justification: short rota\n`,
    );
    const argv = ['apply', '-f', file, '--yes', '--journal', journal];
    refuseOnce = true;
    const first = await svc.run([...argv, '--ndjson'], { ...real, env });
    expect(first.code, first.stderr).toBe(7);
    asOlderSvcKeptIt(journal);
    // Another run grants it for the same hour, 10 s later on the platform's clock.
    expect(
      (await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 10 } })).status,
    ).toBe(200);
    const other = await svc.run(
      [
        '--tenant',
        'acme-apac',
        'roles',
        'assign',
        user(5),
        'tenant_viewer',
        '--expires-in',
        '1h',
        '--justification',
        'other run',
      ],
      { ...real, env },
    );
    expect(other.code, other.stderr).toBe(0);

    const again = await svc.run([...argv, '--ndjson'], { ...real, env });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((row) => `${row.name} ${row.status}`)).toContain(
      `${user(5)} tenant_viewer skipped`,
    );
    const held = (await as(svc.sandbox(), APAC, 'GET', `/v1/role-assignments?user_id=${user(5)}`)).items;
    expect(held.map((a: { justification: string }) => a.justification)).toEqual(['other run']);
  });
});

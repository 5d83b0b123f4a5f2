import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Two `svc apply` of one file at once (two CI runners, two state directories), or an apply and a
// `roles assign --expires-in 30d` of the same pairs: each counts `expires_in` from its own second,
// so the grant the other made first ends a few seconds after this run's planned end. svc plan
// leaves such a grant alone (it ends within the span), and so does the run that meets it: skipped
// `created_by_another_run`, exit 0, no journal kept; a resumed run finds it made (attack21 F2).
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-expiries-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
const LEDGER = tenantId('acme-ledger-uk');
const DAY = 86_400_000;

/** Before forwarding a request, what a test asks to happen meanwhile (once). */
let meanwhile: { method: string; path: string; act: () => Promise<void> } | undefined;
/** Grant POSTs answered 503 (with SVC_MAX_RETRIES=0: the row fails, its journal is kept). */
let refuseGrants = false;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (meanwhile && method === meanwhile.method && path === meanwhile.path) {
      const { act } = meanwhile;
      meanwhile = undefined;
      return act();
    }
  },
  refuse: (method, path) =>
    refuseGrants && method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(path)
      ? refusal(503, 'unavailable')
      : undefined,
});

const file = (name: string, users: number[]) =>
  writeFile(
    dir,
    `${name}.yaml`,
    `version: 1\nblocks:\n  - tenants: acme-ledger-uk\n    grants:\n      - role: tenant_viewer\n        expires_in: 30d\n        justification: nightly\n        users: [${users.map(user).join(', ')}]\n`,
  );

/**
 * Another run's grants of `users`, planned in a later second than this run's: each ends 30 days
 * from then, after this run's planned end, and within 30 days of any moment after it.
 */
async function anotherRunGrants(users: number[]): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)));
  const expires = isoSeconds(Date.now() + 30 * DAY);
  for (const n of users) {
    await as(svc.sandbox(), LEDGER, 'POST', `/v1/users/${user(n)}/roles`, {
      role_id: 'tenant_viewer',
      expires_at: expires,
      justification: 'the other runner',
    });
  }
  return expires;
}

const journals = (state: string) =>
  existsSync(join(state, 'journals'))
    ? readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'))
    : [];

describe('svc apply meeting expires_in grants another run made first', () => {
  it('skips them as made by another run (their expiry shown), exit 0, no journal kept; svc plan then says no changes', async () => {
    const state = join(dir, 'state-race');
    const env = { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state };
    const access = file('race', [1, 2, 3]);
    let expires = '';
    meanwhile = {
      method: 'POST',
      path: `/v1/users/${user(1)}/roles`,
      act: async () => {
        expires = await anotherRunGrants([1, 2]);
      },
    };
    const r = await svc.run(['apply', '-f', access, '--yes', '--ndjson', '--concurrency', '1'], {
      ...real,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(expires).not.toBe('');
    const rows = ndjson(r.stdout).map((row) => ({
      name: row.name,
      status: row.status,
      reason: row.reason,
      expires_at: row.expires_at,
    }));
    expect(rows).toEqual([
      {
        name: `${user(1)} tenant_viewer`,
        status: 'skipped',
        reason: 'created_by_another_run',
        expires_at: expires,
      },
      {
        name: `${user(2)} tenant_viewer`,
        status: 'skipped',
        reason: 'created_by_another_run',
        expires_at: expires,
      },
      { name: `${user(3)} tenant_viewer`, status: 'ok', reason: undefined, expires_at: expect.any(String) },
    ]);
    expect(journals(state)).toEqual([]);
    const plan = await svc.run(['plan', '-f', access], { ...real, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect({ stdout: plan.stdout, stderr: plan.stderr }).toEqual({
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${access}\n`,
    });
  });

  it('says in the text row the expiry of the grant held (review21b R21b-4)', async () => {
    const state = join(dir, 'state-text');
    const env = { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state };
    let expires = '';
    meanwhile = {
      method: 'POST',
      path: `/v1/users/${user(9)}/roles`,
      act: async () => {
        expires = await anotherRunGrants([9]);
      },
    };
    const r = await svc.run(['apply', '-f', file('text', [9]), '--yes', '--concurrency', '1'], {
      ...real,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(expires).not.toBe('');
    const row = r.stdout.split('\n').find((line) => line.includes(user(9)));
    expect(row).toBe(
      `5\tacme-ledger-uk\tgrant\tgrant\t${user(9)} tenant_viewer\tskipped\t\tcreated_by_another_run, until ${expires}`,
    );
  });

  it('an apply racing `roles assign --file` of the same pairs (`30d`, a second later): skipped, exit 0', async () => {
    const csv = writeFile(
      dir,
      'job.csv',
      `user,role,expires_in,justification\n${user(6)},tenant_viewer,30d,nightly\n${user(7)},tenant_viewer,30d,nightly\n`,
    );
    meanwhile = {
      method: 'POST',
      path: `/v1/users/${user(6)}/roles`,
      act: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)));
        const job = await svc.run(['--tenant', LEDGER, 'roles', 'assign', '--file', csv], {
          ...real,
          env: { SVC_STATE_DIR: join(dir, 'state-job') },
        });
        expect(job.code, job.stderr).toBe(0);
      },
    };
    const state = join(dir, 'state-racing-job');
    const r = await svc.run(
      ['apply', '-f', file('job', [6, 7, 8]), '--yes', '--ndjson', '--concurrency', '1'],
      {
        ...real,
        env: { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((row) => `${row.name} ${row.status} ${row.reason}`)).toEqual([
      `${user(6)} tenant_viewer skipped created_by_another_run`,
      `${user(7)} tenant_viewer skipped created_by_another_run`,
      `${user(8)} tenant_viewer ok undefined`,
    ]);
    expect(journals(state)).toEqual([]);
  });

  it('a resumed run whose grants another run made since (expiries a few seconds later): done, exit 0, journal removed', async () => {
    const state = join(dir, 'state-resume');
    const env = { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state, SVC_MAX_RETRIES: '0' };
    const access = file('resume', [4, 5]);
    refuseGrants = true;
    const first = await svc
      .run(['apply', '-f', access, '--yes', '--ndjson'], { ...real, env })
      .finally(() => {
        refuseGrants = false;
      });
    expect(first.code, first.stderr).toBe(7);
    expect(journals(state)).toHaveLength(1);
    await anotherRunGrants([4, 5]);
    const again = await svc.run(['apply', '-f', access, '--yes', '--ndjson'], { ...real, env });
    expect(again.code, again.stderr).toBe(0);
    // The first run marked both grants sent (their outcome unknown after the 503): the resumed run
    // sends them again and is told they exist, made by the other runner after that run's start
    // (brief fixapply item 2; was `already_done`, which did not say whose they are).
    expect(ndjson(again.stdout).map((row) => `${row.name} ${row.status} ${row.reason}`)).toEqual([
      `${user(4)} tenant_viewer skipped created_by_another_run`,
      `${user(5)} tenant_viewer skipped created_by_another_run`,
    ]);
    expect(journals(state)).toEqual([]);
  });
});

/**
 * Attack class "pipe close during a change": a reader that goes away (`| head -1`) while a command
 * changes things; the command must stop, say how far it got (exit 141), and the same command must
 * finish the rest, each change once. Spawned: only a real pipe between real processes shows what
 * a shell sees (SIGPIPE, EPIPE, the exit status of the pipeline).
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { afterResuming } from '../helpers/bulk.js';
import { needs } from '../helpers/needs.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { bash, sandboxEnv } from '../helpers/svc.js';
import { startTarget } from '../helpers/targets.js';
import { useTempDir } from '../helpers/temp.js';
import { admin, createWebhook, replayCounts } from '../helpers/webhooks.js';
import { cases } from './lib.js';

const ROWS = cases(1000, 3000);
const ENTRIES = cases(500, 1500);
const sandbox = useSandbox({ users: ROWS + 10 });
const env = sandboxEnv(sandbox);
const dir = useTempDir('svc-pipe-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TENANT = tenantId('acme-treasury');
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
// The whole runs (1,000 grants, 500 replays) took over 30 s, the spawn helper's limit, in a full
// run under a load of 20 (session 29): 120 s for each, 240 s for a test; upper bounds, not verdicts.
const LONG = { env, timeoutMs: 120_000 };
const counted = async (role: string) =>
  (await call(sandbox(), 'GET', `/_sandbox/assignments?tenant_id=${TENANT}&role_id=${role}`)).body;
/** A fresh custom role, so the sandbox's counts are this test's alone. */
const customRole = async (name: string): Promise<string> =>
  (await admin(sandbox(), 'POST', '/v1/roles', { name, permissions: ['exception.read'] })).body.id;

needs('bash').describe('attack: a closed stdout during a change', () => {
  it(`roles assign --file F (${ROWS.toLocaleString('en')} rows) --ndjson | head -1 stops, says so, exits 141; the re-run grants the rest, each once`, async () => {
    const role = await customRole('pipe-closed');
    const rows = Array.from({ length: ROWS }, (_, i) => `${user(i + 1)},pipe-closed,8h,pipe`);
    const csv = join(dir, 'pipe.csv');
    writeFileSync(csv, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const r = await bash(`svc roles assign --file '${csv}' --ndjson | head -1`, LONG);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.code, r.stderr).toBe(141);
    // The summary line, then (--ndjson) the error as one JSON object.
    const [summary, last, ...more] = r.stderr.trimEnd().split('\n');
    expect([summary, more]).toEqual([
      expect.stringMatching(
        /^[\d,]+ granted(, [\d,]+ not started)? in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/,
      ),
      [],
    ]);
    const error = JSON.parse(last!).error;
    expect(error).toMatchObject({ code: 'stdout_closed', exit_code: 141 });
    expect(`${error.message}; ${error.hint}`).toMatch(
      new RegExp(
        `^stdout closed after [\\d,]+ of ${ROWS.toLocaleString('en')}; run the same command again with the same profile, logged in as the same user or with the same API key, to resume \\(journal .+\\)$`,
      ),
    );
    const made = (await counted(role)).total;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(ROWS);
    const again = await bash(`svc roles assign --file '${csv}' --ndjson > /dev/null`, LONG);
    expect(again.code, again.stderr).toBe(0);
    expect(afterResuming(again.stderr)).toMatch(
      new RegExp(`^✓ ${(ROWS - made).toLocaleString('en')} granted, ${made.toLocaleString('en')} skipped in`),
    );
    expect(await counted(role)).toEqual({ total: ROWS, active: ROWS, users: ROWS, duplicates: 0 });
  }, 240_000);

  it(`replay --dlq (${ENTRIES.toLocaleString('en')} entries) --ndjson | head -1 exits 141; the re-run replays the rest, each entry once`, async () => {
    const target = await startTarget(() => ({ status: 204 }));
    const webhook = await createWebhook(sandbox(), target.url);
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: ENTRIES },
    });
    const r = await bash(`svc webhooks replay ${webhook.id} --dlq --ndjson | head -1`, LONG);
    expect(r.code, r.stderr).toBe(141);
    const error = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error;
    expect(`${error.message}; ${error.hint}`).toMatch(
      new RegExp(
        `^stdout closed after [\\d,]+ of ${ENTRIES.toLocaleString('en')}; run the same command again with the same profile, logged in as the same user or with the same API key, to resume`,
      ),
    );
    const again = await bash(`svc webhooks replay ${webhook.id} --dlq --ndjson > /dev/null`, LONG);
    expect(again.code, again.stderr).toBe(0);
    const queued = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?status=queued`)).body;
    expect(queued.total).toBe(0);
    expect(await replayCounts(sandbox(), webhook.id)).toEqual({ 1: ENTRIES });
  }, 240_000);

  it('a single change whose output cannot be written exits 141 and says the change was made', async () => {
    const role = await customRole('single-closed');
    const r = await bash(
      `svc roles assign ${user(ROWS + 1)} single-closed --expires-in 1h --justification "pipe closed" --json | true`,
      { env },
    );
    expect(r.code).toBe(141);
    const error = JSON.parse(r.stderr).error;
    expect(error).toMatchObject({ code: 'stdout_closed', exit_code: 141 });
    expect(error.message).toMatch(
      new RegExp(
        `^stdout closed, but the change was made: POST /v1/users/${user(ROWS + 1)}/roles answered 201 \\(request req_[0-9a-f]+\\)$`,
      ),
    );
    expect((await counted(role)).active).toBe(1);
  });

  it('svc plan -f F | head -1 with changes pending exits 10 and says so, never 0 ("in sync")', async () => {
    // Over 64 KiB of plan: head reads its line and leaves while svc still writes.
    const roles = Array.from(
      { length: 1500 },
      (_, i) =>
        `      - { name: pipe-plan-${i}, description: ${'d'.repeat(80)}, permissions: [exception.read] }`,
    );
    const file = join(dir, 'plan.yaml');
    writeFileSync(file, `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n${roles.join('\n')}\n`);
    const summary = 'plan: 1,500 to create, 0 to update, 0 to delete in 1 of 1 tenant';
    const r = await bash(`svc plan -f '${file}' | head -1`, { env });
    expect([r.code, r.stderr]).toEqual([
      10,
      `error: changes are pending (stdout closed before the plan was printed whole): ${summary}\n`,
    ]);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    const json = await bash(`svc plan -f '${file}' --json | head -c 100 > /dev/null`, { env });
    expect([json.code, JSON.parse(json.stderr).error]).toEqual([
      10,
      {
        code: 'changes_pending',
        message: `changes are pending (stdout closed before the plan was printed whole): ${summary}`,
        exit_code: 10,
      },
    ]);
  });

  it('a listing whose reader goes away still ends quietly with 0', async () => {
    const r = await bash('svc tenants ls --all --ndjson | head -1', { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

// A full disk is not a closed pipe: the write fails (ENOSPC) and the reader is still there.
// /dev/full is Linux's (and the BSDs'); elsewhere these tests are skipped.
const full = it.skipIf(!existsSync('/dev/full'));
needs('bash').describe('attack: stdout on a full disk (/dev/full)', () => {
  full('a single change says it was made (exit 1); a bulk run says how far it got and resumes', async () => {
    const role = await customRole('dev-full');
    const single = await bash(
      `svc roles assign ${user(ROWS + 2)} dev-full --expires-in 1h --justification full > /dev/full`,
      { env },
    );
    expect([single.code, single.stdout]).toEqual([1, '']);
    expect(single.stderr).toMatch(
      new RegExp(
        `^error: cannot write to stdout \\(ENOSPC\\), but the change was made: POST /v1/users/${user(ROWS + 2)}/roles answered 201 \\(request req_[0-9a-f]+\\); its output was lost; check the result before running the command again\\n$`,
      ),
    );
    const rows = [3, 4, 5].map((n) => `${user(ROWS + n)},dev-full,1h,full`).join('\n');
    const csv = join(dir, 'full.csv');
    writeFileSync(csv, `user,role,expires_in,justification\n${rows}\n`);
    const bulk = await bash(`svc roles assign --file '${csv}' > /dev/full`, { env });
    expect(bulk.code, bulk.stderr).toBe(1);
    expect(bulk.stderr).toMatch(
      /^\d granted(, \d not started)? in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)\nerror: cannot write to stdout \(ENOSPC\) after \d of 3; run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal .+\)\n$/,
    );
    const again = await bash(`svc roles assign --file '${csv}' > /dev/null`, { env });
    expect(again.code, again.stderr).toBe(0);
    expect((await counted(role)).active).toBe(4);
  });

  full('a command that only reads says it cannot write (exit 1), not "a bug in svc"', async () => {
    const r = await bash('svc tenants ls > /dev/full', { env });
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: cannot write to stdout (ENOSPC); check where stdout goes (a full disk, a failed device), then run the command again\n',
    ]);
  });
});

/**
 * review25a H1: a 409 "already so" to the retry of an attempt whose answer was lost is "found done,
 * most likely by that attempt" only when nothing shows the change is someone else's. Here another
 * admin's grant lands just before the run's first attempt, whose answer (the platform's 409) is
 * dropped: the retry's 409 is then the lost attempt's own stored answer (Idempotent-Replayed: the
 * attempt was refused and made nothing), and the grant held is not the one sent (another
 * justification). svc apply, roles assign and roles assign --file keep their old verdicts
 * (skipped created_by_another_run, already_assigned), never "granted by this command's attempt".
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/system/clock.js';
import { as, LABS, user, writeFile } from '../helpers/ascode.js';
import { ACME, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { virtualClock } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

/**
 * The time the sandbox's clock runs on while a test holds it (review27b M3): svc's clock is then
 * that time and an offset (together), and only svc's waits move it, so a stall of the machine
 * moves neither clock and each verdict is the same however long a request takes (checked with a
 * 5 s stall before the retry; the old frozen svc clock against the sandbox's real one failed all
 * eight). The seconds said are 29 or 30: the Date header's whole second beside a wait svc played.
 */
let frozen: number | undefined;
const sandbox = useSandbox({ users: 10, baseClock: () => frozen ?? Date.now() });
/** svc's clock `offMs` off the sandbox's, both on the one held time, which svc's waits move. */
const together = (offMs: number): Required<Clock> => {
  frozen ??= Date.now();
  const shift = sandbox().state.clock.offsetMs + offMs;
  const move = (ms: number) => {
    frozen = (frozen ?? Date.now()) + ms;
  };
  return {
    ...virtualClock(),
    now: () => (frozen ?? Date.now()) + shift,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      move(ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
    sleepSync: move,
  };
};
const svc = bulkRunner(sandbox);
const dir = useTempDir('svc-found-after-lost-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;

/** What lands just before the first grant attempt: another admin's grant (tenant, role id). */
let theirs: { tenant: string; role: string; justification: string; agoMs?: number } | undefined;
let seen = 0;
/** A platform that keeps no stored answers: each grant attempt passed on with a fresh key. */
let forget = false;
let fresh = 0;
/** A server that sends no Date header on any answer. */
let undated = false;
afterEach(() => {
  theirs = undefined;
  seen = 0;
  forget = false;
  undated = false;
  frozen = undefined;
  proxy().reset();
});
const proxy = useLossyProxy(sandbox, {
  before: async (method, path) => {
    if (method === 'POST' && GRANT.test(path) && ++seen === 1 && theirs) {
      const { tenant, role, justification, agoMs = 0 } = theirs;
      // Made agoMs before now on the platform's clock (moved back for it, then forward again).
      sandbox().state.clock.advance(-agoMs);
      try {
        await as(sandbox(), tenant, 'POST', path, { role_id: role, justification });
      } finally {
        sandbox().state.clock.advance(agoMs);
      }
    }
  },
  lose: (method, path, n) => (method === 'POST' && GRANT.test(path) && n === 1 ? 'drop' : false),
  body: (method, path, body) =>
    forget && method === 'POST' && GRANT.test(path)
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
  sendDate: () => !undated,
});

describe("another admin's grant just before a lost attempt (review25a H1)", () => {
  const applyGrant = async (name: string, justification: string) => {
    const role = (await as(sandbox(), LABS, 'POST', '/v1/roles', { name, permissions: ['exception.read'] }))
      .id as string;
    const file = writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: ${name}, permissions: [exception.read] }\n    grants:\n      - { user: ${user(1)}, role: ${name}, justification: ${justification} }\n`,
    );
    return { role, file };
  };
  const apply = (name: string, file: string) =>
    svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, `${name}.j`), '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url, SVC_TENANT: '' },
    });

  it('svc apply: the replayed refusal and another justification: skipped, created_by_another_run', async () => {
    const { role, file } = await applyGrant('h1-a', 'mine');
    theirs = { tenant: LABS, role, justification: 'theirs' };
    const r = await apply('h1-a', file);
    const row = JSON.parse(r.stdout);
    expect([r.code, row.status, row.reason, row.note]).toEqual([
      0,
      'skipped',
      'created_by_another_run',
      // The POST's 409: the file's justification was sent but is recorded nowhere, and the row says so (review29c M2).
      "the file's justification was sent but not recorded: the platform left the grant in place as it was, and the audit trail keeps the justification of the change that set the grant, not the file's",
    ]);
  });

  it('svc apply: the replayed refusal alone (same justification) is the attempt refused: skipped', async () => {
    const { role, file } = await applyGrant('h1-b', 'same');
    theirs = { tenant: LABS, role, justification: 'same' };
    const r = await apply('h1-b', file);
    expect([JSON.parse(r.stdout).status, JSON.parse(r.stdout).reason]).toEqual([
      'skipped',
      'created_by_another_run',
    ]);
  });

  it('svc apply: no stored answers, but the grant held is not the one sent: skipped', async () => {
    const { role, file } = await applyGrant('h1-c', 'mine');
    theirs = { tenant: LABS, role, justification: 'theirs' };
    forget = true;
    const r = await apply('h1-c', file);
    expect([JSON.parse(r.stdout).status, JSON.parse(r.stdout).reason]).toEqual([
      'skipped',
      'created_by_another_run',
    ]);
  });

  const assign = (u: string, role: string, ...more: string[]) => [
    'roles',
    'assign',
    u,
    role,
    '--justification',
    'mine',
    '--expires-in',
    'never',
    '--yes',
    ...more,
  ];

  it('roles assign: already_assigned, nothing changed; --json without found_after_lost_answer', async () => {
    const role = await customRole(sandbox(), 'h1-single');
    theirs = { tenant: ACME, role, justification: 'theirs' };
    const r = await svc.run(assign(bulkUser(2), 'h1-single'), { env: { SVC_BASE_URL: proxy().url } });
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining('justification\ttheirs\n')]);
    expect(r.stderr).toMatch(
      new RegExp(
        `^skipped: already_assigned — ${bulkUser(2)} already holds h1-single permanently .*; nothing changed\n`,
      ),
    );
    proxy().reset();
    seen = 0;
    theirs = { tenant: ACME, role, justification: 'theirs' };
    const j = await svc.run(assign(bulkUser(3), 'h1-single', '--json'), {
      env: { SVC_BASE_URL: proxy().url },
    });
    const held = JSON.parse(j.stdout);
    expect([j.code, held.justification, held.already_assigned, held.found_after_lost_answer]).toEqual([
      0,
      'theirs',
      true,
      undefined,
    ]);
  });

  it('roles assign --file: the row is skipped already_assigned, not found_after_lost_answer', async () => {
    const role = await customRole(sandbox(), 'h1-file');
    theirs = { tenant: ACME, role, justification: 'theirs' };
    const path = svc.file('h1.csv', `user,role\n${bulkUser(4)},h1-file\n`);
    await expectSkippedAlreadyAssigned(
      path,
      // The POST's 409: the row's justification was sent but is recorded nowhere, and the row says so (review29c M2).
      "the row's justification was sent but not recorded: the platform left the grant in place as it was, and the audit trail keeps the justification of the change that set the grant, not the row's",
    );
  });
});

/** `roles assign --file path` as "mine", never expiring, through the proxy: its one row skipped as already assigned. */
async function expectSkippedAlreadyAssigned(path: string, note?: string): Promise<void> {
  const r = await svc.run(
    [
      'roles',
      'assign',
      '--file',
      path,
      '--expires-in',
      'never',
      '--justification',
      'mine',
      '--yes',
      '--ndjson',
    ],
    { env: { SVC_BASE_URL: proxy().url } },
  );
  const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
  expect([r.code, row.status, row.reason, row.note]).toEqual([0, 'skipped', 'already_assigned', note]);
}

// review25d L2: a grant made clearly before the run (10 minutes, far beyond the clocks' allowed
// difference) with the very justification and expiry sent, the retry's 409 not the stored answer
// (a platform that keeps none): only its time shows it is not this run's (clearlyBefore).
describe('a grant made clearly before the run, as sent, after a lost answer (review25d L2)', () => {
  it('roles assign --file: the row is skipped already_assigned, not found_after_lost_answer', async () => {
    const role = await customRole(sandbox(), 'l2-before');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 600_000 };
    forget = true;
    const path = svc.file('l2.csv', `user,role\n${bulkUser(7)},l2-before\n`);
    await expectSkippedAlreadyAssigned(path);
  });

  // review27b M1 (was `ok found_after_lost_answer`), brief fixgrant4 item 1 (then `skipped
  // already_assigned`): with no Date header at all, this machine's clock may be off the platform's
  // by any amount, so a grant as sent made 10 minutes before the row's start may be the lost
  // attempt's own: an unknown outcome, neither "granted" nor "nothing changed".
  it('no Date header: roles assign --file: a grant 10 minutes before: failed, unknown, exit 7', async () => {
    const role = await customRole(sandbox(), 'l2-undated');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 600_000 };
    forget = true;
    undated = true;
    const path = svc.file('l2-undated.csv', `user,role\n${bulkUser(6)},l2-undated\n`);
    const r = await svc.run(
      [
        ...['roles', 'assign', '--file', path, '--expires-in', 'never', '--justification', 'mine'],
        ...['--yes', '--ndjson'],
      ],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.status, row.outcome, row.error?.code], r.stdout).toEqual([
      7,
      'failed',
      'unknown',
      'outcome_unknown',
    ]);
  });

  // Only a grant older than OLD_GRANT_MS (48 h, the clocks' widest gap svc allows) is shown not
  // the run's without a Date header.
  it('no Date header: roles assign --file: a grant 49 h before: skipped already_assigned', async () => {
    const role = await customRole(sandbox(), 'l2-undated-old');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 49 * 3_600_000 };
    forget = true;
    undated = true;
    const path = svc.file('l2-undated-old.csv', `user,role\n${bulkUser(8)},l2-undated-old\n`);
    await expectSkippedAlreadyAssigned(path);
  });

  it('no Date header: svc apply: a grant 10 minutes before: the step failed, unknown, exit 7', async () => {
    const name = 'l2-undated-apply';
    const role = (await as(sandbox(), LABS, 'POST', '/v1/roles', { name, permissions: ['exception.read'] }))
      .id as string;
    const file = writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: ${name}, permissions: [exception.read] }\n    grants:\n      - { user: ${user(3)}, role: ${name}, justification: mine }\n`,
    );
    theirs = { tenant: LABS, role, justification: 'mine', agoMs: 600_000 };
    forget = true;
    undated = true;
    const r = await svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, `${name}.j`), '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url, SVC_TENANT: '' },
    });
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.kind, row.status, row.outcome], r.stdout).toEqual([7, 'grant', 'failed', 'unknown']);
  });
});

// review25a L1: the refusal to the retry is marked as the platform's stored answer to the lost
// attempt: that attempt was refused and did not act. It is a plain refusal, without "it may have
// acted" or "lost_answer".
describe('a replayed refusal after a lost answer (review25a L1)', () => {
  let taken = '';
  let tries = 0;
  const roles = useLossyProxy(sandbox, {
    before: async (method, path) => {
      if (method === 'POST' && path === '/v1/roles' && ++tries === 1 && taken)
        await customRole(sandbox(), taken);
    },
    lose: (method, path, n) => (method === 'POST' && path === '/v1/roles' && n === 1 ? 'drop' : false),
  });
  let doomed = '';
  const grants = useLossyProxy(sandbox, {
    before: async (method, path) => {
      if (method === 'POST' && GRANT.test(path) && ++tries === 1 && doomed)
        await as(sandbox(), ACME, 'DELETE', `/v1/roles/${doomed}`);
    },
    lose: (method, path, n) => (method === 'POST' && GRANT.test(path) && n === 1 ? 'drop' : false),
  });
  afterEach(() => {
    taken = '';
    doomed = '';
    tries = 0;
    roles().reset();
    grants().reset();
  });

  it('roles create: the plain refusal, exit 6; --json without lost_answer', async () => {
    taken = 'l1-taken';
    const r = await svc.run(['roles', 'create', '--name', 'l1-taken', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: roles().url },
    });
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr).toMatch(
      /^error: a role named l1-taken already exists in this tenant \[name: is taken\] \(HTTP 409, role_name_taken, request req_\w+\); pick another --name/,
    );
    roles().reset();
    tries = 0;
    taken = 'l1-taken-json';
    const j = await svc.run(
      ['roles', 'create', '--name', 'l1-taken-json', '--permission', 'exception.read', '--json'],
      { env: { SVC_BASE_URL: roles().url } },
    );
    const { error } = JSON.parse(j.stderr);
    expect([j.code, error.message, error.lost_answer]).toEqual([
      6,
      'a role named l1-taken-json already exists in this tenant',
      undefined,
    ]);
  });

  // review25c H1: apply's role create asks the same rule. Another admin's role of the planned name
  // and permissions lands after the plan, just before the run's first attempt, whose answer (the
  // platform's stored 409) is dropped; the retry under the same key is that 409 replayed: the
  // attempt was refused, so the role is another's (skipped created_by_another_run), never
  // found_after_lost_answer.
  it('svc apply role create: the replayed refusal is the attempt refused: skipped, created_by_another_run', async () => {
    taken = 'h1-apply-role';
    const file = writeFile(
      dir,
      'h1-apply-role.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - { name: h1-apply-role, permissions: [exception.read] }\n',
    );
    const r = await svc.run(
      ['apply', '-f', file, '--yes', '--journal', join(dir, 'h1-apply-role.j'), '--ndjson'],
      { env: { SVC_BASE_URL: roles().url, SVC_TENANT: '' } },
    );
    const row = JSON.parse(r.stdout);
    // Two attempts: the first (its answer dropped) and the retry the platform answered.
    expect([r.code, tries, row.status, row.reason, row.note, row.id]).toEqual([
      0,
      2,
      'skipped',
      'created_by_another_run',
      undefined,
      expect.stringMatching(/^role_/),
    ]);
  });

  it('roles assign --file: the row is failed with the plain refusal, no lost_answer', async () => {
    const path = svc.file('l1.csv', `user,role\n${bulkUser(6)},l1-gone\n`);
    // The role is deleted just before the row's first attempt, whose answer (409 role_deleted) is dropped.
    doomed = await customRole(sandbox(), 'l1-gone');
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--expires-in', '1d', '--justification', 'x', '--yes', '--ndjson'],
      { env: { SVC_BASE_URL: grants().url } },
    );
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.status, row.error.code, row.error.message, row.error.lost_answer]).toEqual([
      7,
      'failed',
      'role_deleted',
      expect.not.stringContaining('lost'),
      undefined,
    ]);
  });
});

// s27 (brief fixgrant2 item 2): whether the grant a retry finds was the lost attempt's is judged on
// the platform's clock alone (the run's start as its Date header says, to the second), never this
// machine's: svc's clock 50 s off the sandbox's (within the minute svc otherwise lets pass) moved
// the run's start by 50 s. A grant as sent made 30 s before the start is someone else's, or the
// attempt's on a clock that disagrees: svc cannot tell, so the outcome is unknown.
describe("a grant found after a lost answer, svc's clock 50 s off the platform's", () => {
  const mine = (u: string, role: string, offMs: number) =>
    svc.run(assign(u, role), {
      env: { SVC_BASE_URL: proxy().url },
      clock: together(offMs),
    });
  const assign = (u: string, role: string) => [
    'roles',
    'assign',
    u,
    role,
    '--justification',
    'mine',
    '--expires-in',
    'never',
    '--yes',
  ];

  it("another admin's grant as sent, 30 s before the start, svc 50 s behind: unknown, exit 1, no ✓", async () => {
    const role = await customRole(sandbox(), 'skew-theirs');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 30_000 };
    forget = true;
    const r = await mine(bulkUser(8), 'skew-theirs', -50_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain('✓');
    expect(r.stderr).toMatch(
      /^error: the grant found in place was assigned \S+Z, (29|30) s before the first attempt was sent, on the platform's clock, and the answer to the first attempt was lost \(the connection dropped\): made by that attempt or before it, svc cannot tell, so the outcome is unknown: the platform may have made this change; /,
    );
  });

  // review27b L1: its own code (a script keying on assignment_exists read "nothing changed"), and
  // a hint naming the command that shows who holds the role.
  it("another admin's grant, 30 s before, --json: outcome_unknown, the hint names roles holders", async () => {
    const role = await customRole(sandbox(), 'skew-theirs-json');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 30_000 };
    forget = true;
    const r = await svc.run([...assign(bulkUser(7), 'skew-theirs-json'), '--json'], {
      env: { SVC_BASE_URL: proxy().url },
      clock: together(-50_000),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr);
    expect([error.code, error.outcome, error.exit_code, error.hint]).toEqual([
      'outcome_unknown',
      'unknown',
      1,
      'check who made it before running the command again (`svc roles holders skew-theirs-json` shows it)',
    ]);
  });

  it("the lost attempt's own grant, svc 50 s ahead: granted by that attempt, exit 0", async () => {
    await customRole(sandbox(), 'skew-mine');
    forget = true;
    const r = await mine(bulkUser(9), 'skew-mine', 50_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^✓ granted skew-mine to .* most likely by this command's attempt whose answer was lost/,
    );
  });
});

// The same rule for `roles create` (its role's created_at against the run's start, on the
// platform's clock): another admin's role of the name and permissions asked, made 30 s before,
// svc's clock 50 s behind, the platform keeping no stored answers.
describe("a role found after a lost answer, svc's clock 50 s off the platform's", () => {
  let made = '';
  let tries = 0;
  let keys = 0;
  const roles = useLossyProxy(sandbox, {
    before: async (method, path) => {
      if (method !== 'POST' || path !== '/v1/roles' || ++tries !== 1 || !made) return;
      sandbox().state.clock.advance(-30_000);
      try {
        await customRole(sandbox(), made);
      } finally {
        sandbox().state.clock.advance(30_000);
      }
    },
    lose: (method, path, n) => (method === 'POST' && path === '/v1/roles' && n === 1 ? 'drop' : false),
    body: (method, path, body) =>
      method === 'POST' && path === '/v1/roles'
        ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-role-${++keys}` })
        : body,
    sendDate: () => !undatedRoles,
  });
  /** No answer carries a Date header. */
  let undatedRoles = false;
  afterEach(() => {
    made = '';
    tries = 0;
    undatedRoles = false;
    roles().reset();
  });

  // Brief fixgrant4 item 1, a role: no Date header, svc's clock 90 s ahead; the lost attempt's own
  // role read as made 90 s before the start was "not the attempt's" (the plain refusal, exit 6).
  it("no Date header, svc 90 s ahead: the lost attempt's own role: unknown, exit 1, never the refusal", async () => {
    undatedRoles = true;
    const r = await svc.run(
      ['roles', 'create', '--name', 'undated-own-role', '--permission', 'exception.read'],
      {
        env: { SVC_BASE_URL: roles().url },
        clock: together(90_000),
      },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the role found was made \S+Z, and no answer of the platform's carried a Date header to set that beside the first attempt's start, and the answer to the first attempt was lost \(the connection dropped\): made by that attempt or before it, svc cannot tell, so the outcome is unknown/,
    );
  });

  it('roles create: unknown, exit 1, no ✓', async () => {
    made = 'skew-role';
    const r = await svc.run(['roles', 'create', '--name', 'skew-role', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: roles().url },
      clock: together(-50_000),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain('✓');
    expect(r.stderr).toMatch(
      /^error: the role found was made \S+Z, (29|30) s before the first attempt was sent, on the platform's clock, and the answer to the first attempt was lost \(the connection dropped\): made by that attempt or before it, svc cannot tell, so the outcome is unknown/,
    );
  });

  it('svc apply role create (fixgrant3): the step failed, outcome unknown, exit 7', async () => {
    made = 'skew-apply-role';
    const path = writeFile(
      dir,
      'skew-apply-role.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - { name: skew-apply-role, permissions: [exception.read] }\n',
    );
    const r = await svc.run(
      ['apply', '-f', path, '--yes', '--journal', join(dir, 'skew-apply-role.j'), '--ndjson'],
      {
        env: { SVC_BASE_URL: roles().url, SVC_TENANT: '' },
        clock: together(-50_000),
      },
    );
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.kind, row.status, row.outcome, row.reason], r.stdout).toEqual([
      7,
      'role',
      'failed',
      'unknown',
      undefined,
    ]);
    expect(row.error.message).toMatch(
      /^the role found was made \S+Z, (29|30) s before the first attempt was sent, on the platform's clock, and the answer to the first attempt was lost/,
    );
  });
});

// s27 (brief fixgrant3): roles assign --file and svc apply judge by the same rule as the single
// verb: the row's start on the platform's clock (its retry's own Date header), never the run's or
// the plan's anchor on this machine's clock within the minute. Another admin's grant as sent, made
// 30 s before the row's attempt with svc's clock 50 s behind, is an unknown outcome (the row
// failed, outcome unknown, exit 7), never found_after_lost_answer; the lost attempt's own grant,
// svc 50 s ahead, is still found done by that attempt.
describe("a bulk or apply grant found after a lost answer, svc's clock 50 s off the platform's", () => {
  const at = (offMs: number) => together(offMs);
  const file = (name: string, u: string, offMs: number) =>
    svc.run(
      [
        ...['roles', 'assign', '--file', svc.file(`${name}.csv`, `user,role\n${u},${name}\n`)],
        ...['--expires-in', 'never', '--justification', 'mine', '--yes', '--ndjson'],
        ...['--journal', join(dir, `${name}.j`)],
      ],
      { env: { SVC_BASE_URL: proxy().url }, clock: at(offMs) },
    );
  const rowOf = (stdout: string) => JSON.parse(stdout.trim().split('\n')[0]!);

  it("--file: another admin's grant as sent, 30 s before, svc 50 s behind: failed, unknown, exit 7", async () => {
    const role = await customRole(sandbox(), 'skew-file-theirs');
    theirs = { tenant: ACME, role, justification: 'mine', agoMs: 30_000 };
    forget = true;
    const r = await file('skew-file-theirs', bulkUser(1), -50_000);
    const row = rowOf(r.stdout);
    expect(row.error.code, r.stdout).toBe('outcome_unknown');
    expect([r.code, row.status, row.outcome, row.reason], r.stdout).toEqual([
      7,
      'failed',
      'unknown',
      undefined,
    ]);
    expect(row.error.message).toMatch(
      /^the grant found in place was assigned \S+Z, (29|30) s before the first attempt was sent, on the platform's clock, and the answer to the first attempt was lost \(the connection dropped\): made by that attempt or before it, svc cannot tell/,
    );
    expect(r.stderr).not.toContain('✓');
  });

  it("--file: the lost attempt's own grant, svc 50 s ahead: found_after_lost_answer, exit 0", async () => {
    await customRole(sandbox(), 'skew-file-mine');
    forget = true;
    const r = await file('skew-file-mine', bulkUser(5), 50_000);
    const row = rowOf(r.stdout);
    expect([r.code, row.status, row.reason], r.stdout).toEqual([0, 'ok', 'found_after_lost_answer']);
  });

  const applied = async (name: string, offMs: number) => {
    const role = (await as(sandbox(), LABS, 'POST', '/v1/roles', { name, permissions: ['exception.read'] }))
      .id as string;
    const path = writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: ${name}, permissions: [exception.read] }\n    grants:\n      - { user: ${user(2)}, role: ${name}, justification: mine }\n`,
    );
    return {
      role,
      run: () =>
        svc.run(['apply', '-f', path, '--yes', '--journal', join(dir, `${name}.j`), '--ndjson'], {
          env: { SVC_BASE_URL: proxy().url, SVC_TENANT: '' },
          clock: at(offMs),
        }),
    };
  };

  it("svc apply: another admin's grant as sent, 30 s before, svc 50 s behind: failed, unknown, exit 7", async () => {
    const { role, run } = await applied('skew-apply-theirs', -50_000);
    theirs = { tenant: LABS, role, justification: 'mine', agoMs: 30_000 };
    forget = true;
    const r = await run();
    const row = rowOf(r.stdout);
    expect([r.code, row.kind, row.status, row.outcome, row.reason], r.stdout).toEqual([
      7,
      'grant',
      'failed',
      'unknown',
      undefined,
    ]);
    expect(row.error.message).toMatch(
      /^the grant found in place was assigned \S+Z, (29|30) s before the first attempt was sent, on the platform's clock, and the answer to the first attempt was lost/,
    );
    expect(r.stderr).not.toContain('✓');
  });

  it("svc apply: the lost attempt's own grant, svc 50 s ahead: found_after_lost_answer, exit 0", async () => {
    const { run } = await applied('skew-apply-mine', 50_000);
    forget = true;
    const r = await run();
    const row = rowOf(r.stdout);
    expect([r.code, row.status, row.reason], r.stdout).toEqual([0, 'ok', 'found_after_lost_answer']);
  });
});

// s28 (brief fixgrant4 item 1): with no Date header svc has no reading of the platform's clock, so
// its own clock, which may be off by any amount, cannot tell the lost attempt's grant from another
// admin's made a minute (or ten) before it. svc's clock 90 s ahead of the sandbox's: the lost
// attempt's own grant reads as assigned 90 s before the start. It was `skipped already_assigned`
// ("nothing changed", of a grant this run made); now an unknown outcome, the hint naming
// `svc roles holders ROLE`. Only a grant older than OLD_GRANT_MS (48 h) is shown not this run's.
describe("no Date header, svc's clock 90 s ahead: the lost attempt's own grant", () => {
  const args = (u: string, role: string) => [
    ...['roles', 'assign', u, role, '--justification', 'mine', '--expires-in', 'never', '--yes'],
  ];

  it('roles assign --json: outcome_unknown, exit 1, the hint names roles holders, never already_assigned', async () => {
    await customRole(sandbox(), 'undated-ahead');
    forget = true;
    undated = true;
    const r = await svc.run([...args(bulkUser(10), 'undated-ahead'), '--json'], {
      env: { SVC_BASE_URL: proxy().url },
      clock: together(90_000),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr);
    expect([error.code, error.outcome, error.hint]).toEqual([
      'outcome_unknown',
      'unknown',
      'check who made it before running the command again (`svc roles holders undated-ahead` shows it)',
    ]);
    expect(error.message).toMatch(
      /^the grant found in place was assigned \S+Z, and no answer of the platform's carried a Date header to set that beside the first attempt's start, and the answer to the first attempt was lost \(the connection dropped\): made by that attempt or before it, svc cannot tell/,
    );
  });

  it('roles assign --file: the row failed, outcome unknown, exit 7, not skipped already_assigned', async () => {
    await customRole(sandbox(), 'undated-ahead-file');
    forget = true;
    undated = true;
    const r = await svc.run(
      [
        ...[
          'roles',
          'assign',
          '--file',
          svc.file('undated-ahead.csv', `user,role\n${bulkUser(1)},undated-ahead-file\n`),
        ],
        ...['--expires-in', 'never', '--justification', 'mine', '--yes', '--ndjson'],
        ...['--journal', join(dir, 'undated-ahead-file.j')],
      ],
      { env: { SVC_BASE_URL: proxy().url }, clock: together(90_000) },
    );
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.status, row.outcome, row.reason, row.error?.code], r.stdout).toEqual([
      7,
      'failed',
      'unknown',
      undefined,
      'outcome_unknown',
    ]);
  });

  it('svc apply: the grant step failed, outcome unknown, exit 7', async () => {
    const name = 'undated-ahead-apply';
    await as(sandbox(), LABS, 'POST', '/v1/roles', { name, permissions: ['exception.read'] });
    const file = writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: ${name}, permissions: [exception.read] }\n    grants:\n      - { user: ${user(4)}, role: ${name}, justification: mine }\n`,
    );
    forget = true;
    undated = true;
    const r = await svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, `${name}.j`), '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url, SVC_TENANT: '' },
      clock: together(90_000),
    });
    const row = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect([r.code, row.kind, row.status, row.outcome], r.stdout).toEqual([7, 'grant', 'failed', 'unknown']);
  });
});

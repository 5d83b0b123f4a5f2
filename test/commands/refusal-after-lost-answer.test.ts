/**
 * review24f M1: a refusal (a 4xx) to the retry of an attempt whose answer was lost (the connection
 * dropped after the request was sent) is the platform's answer about the retry only: the lost
 * attempt may have acted, and this answer may describe what it left (a 409 "already exists" for
 * what it made). Every command says so, as `svc api` did (one rule: refusalAfterLostAnswer), and
 * `--json` carries `lost_answer`; the exit code stays the answer's (409: 6, 404: 5) and a bulk row
 * is failed, with the same words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACME, assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { refusal, useLossyProxy } from '../helpers/lossy-proxy.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { timeless } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;
const ROLES = '/v1/roles';
const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const LOST =
  "an earlier attempt's answer was lost (the connection dropped) and it may have acted; this answer may describe what it left:";

/** The retry's answer (attempt 2 of a grant); the first attempt reaches the platform and is dropped. */
let retry: ReturnType<typeof refusal> | undefined;
const attempts = new Map<string, number>();
afterEach(() => {
  attempts.clear();
  retry = undefined;
});
const refusing = useLossyProxy(sandbox, {
  lose: (method, path, seen) => (method === 'POST' && GRANT.test(path) && seen === 1 ? 'drop' : false),
  refuse: (method, path) => {
    if (method !== 'POST' || !GRANT.test(path)) return undefined;
    const n = (attempts.get(path) ?? 0) + 1;
    attempts.set(path, n);
    return n >= 2 ? retry : undefined;
  },
});
afterEach(() => refusing().reset());

// A platform that keeps no stored answers (each attempt passed on with a fresh key): the retry of a
// role's creation is the sandbox's own 409 role_name_taken, for the role the lost attempt made.
let fresh = 0;
const forgetful = useLossyProxy(sandbox, {
  lose: (method, path, seen) => (method === 'POST' && path === ROLES && seen === 1 ? 'drop' : false),
  body: (method, path, body) =>
    method === 'POST' && path === ROLES
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
});
afterEach(() => forgetful().reset());

// The same platform, where the roles cannot be read back after the retry (fixout3): the name may
// be the lost attempt's own role, so svc cannot tell, never "pick another --name".
let blindFresh = 0;
const blind = useLossyProxy(sandbox, {
  lose: (method, path, seen) => (method === 'POST' && path === ROLES && seen === 1 ? 'drop' : false),
  body: (method, path, body) =>
    method === 'POST' && path === ROLES
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `blind-${++blindFresh}` })
      : body,
  refuse: (method, path) =>
    method === 'GET' && path.startsWith(`${ROLES}?`) ? refusal(403, 'forbidden', 'not allowed') : undefined,
});
afterEach(() => blind().reset());

// The same platform, where something happens as svc reads the roles back after the retry's 409
// (review28b M1, L4): the role of that name is deleted first (`gone`), or Ctrl-C comes (`cut`),
// the read held until then so that the stop, not its answer, ends it.
let laterFresh = 0;
let later: { gone?: string; cut?: AbortController } = {};
let releaseRead: (() => void) | undefined;
afterEach(() => {
  later = {};
  releaseRead?.();
});
const meanwhile = useLossyProxy(sandbox, {
  lose: (method, path, seen) => (method === 'POST' && path === ROLES && seen === 1 ? 'drop' : false),
  body: (method, path, body) =>
    method === 'POST' && path === ROLES
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `later-${++laterFresh}` })
      : body,
  before: async (method, path) => {
    if (method !== 'GET' || !path.startsWith(`${ROLES}?`)) return;
    const s = sandbox();
    if (later.gone !== undefined) {
      const listed = await call(s, 'GET', `${ROLES}?limit=200`, { token: s.adminToken, tenant: ACME });
      const role = listed.body.items.find((r: { name: string }) => r.name === later.gone);
      const r = await call(s, 'DELETE', `${ROLES}/${role.id}`, { token: s.adminToken, tenant: ACME });
      if (r.status !== 200) throw new Error(`their delete: ${r.status} ${r.text}`);
      later.gone = undefined;
    }
    if (later.cut) {
      later.cut.abort();
      later.cut = undefined;
      await new Promise<void>((resolve) => {
        releaseRead = resolve;
      });
    }
  },
});
afterEach(() => meanwhile().reset());

const grant = (user: string, role: string) => [
  'roles',
  'assign',
  user,
  role,
  '--expires-in',
  '1d',
  '--justification',
  'x',
  '--yes',
];

describe('a refusal to the retry of an attempt whose answer was lost (review24f M1)', () => {
  // Session 25 (brief fixpn 3): read back, the role with exactly the permissions asked is most
  // likely the lost attempt's: created, exit 0, as `roles assign` says a grant found after a lost
  // answer is granted and `svc apply` counts such a role found_after_lost_answer; `--json` says how.
  it('roles create answered 409 role_name_taken, the role found as asked: created by the lost attempt; exit 0', async () => {
    const r = await svc.run(['roles', 'create', '--name', 'lost-made', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: forgetful().url },
    });
    const id = /^id\t(role_[0-9a-f]{24})$/m.exec(r.stdout)?.[1];
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ created role lost-made (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016: most likely by this command's attempt whose answer was lost (the connection dropped); its retry found a role of that name with exactly the permissions asked\n`,
    ]);
    expect(r.stdout).toContain('permissions\texception.read\n');
  });

  it('roles create --json: the role, with "found_after_lost_answer": true', async () => {
    const r = await svc.run(
      ['roles', 'create', '--name', 'lost-made-json', '--permission', 'exception.read', '--json'],
      { env: { SVC_BASE_URL: forgetful().url } },
    );
    expect([r.code, r.stderr, JSON.parse(r.stdout)]).toEqual([
      0,
      '',
      expect.objectContaining({
        id: expect.stringMatching(/^role_[0-9a-f]{24}$/),
        name: 'lost-made-json',
        permissions: ['exception.read'],
        found_after_lost_answer: true,
      }),
    ]);
  });

  it('roles create answered 409 role_name_taken, the roles unreadable: unknown (exit 1), not "pick another --name"', async () => {
    const r = await svc.run(['roles', 'create', '--name', 'lost-blind', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: blind().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      "error: the retry was told the name lost-blind is taken, and the answer to the first attempt was lost (the connection dropped): the role may be this command's own, made by that attempt, and svc could not read the roles back to tell (not allowed), so the outcome is unknown: the platform may have made this change; check who made the role before running the command again (`svc roles get lost-blind` shows it)\n",
    ]);
  });

  it('roles create answered 409 role_name_taken, no live role of that name when read back: unknown (exit 1), the hint names roles ls', async () => {
    later = { gone: 'lost-gone' };
    const r = await svc.run(['roles', 'create', '--name', 'lost-gone', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: meanwhile().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      'error: the retry was told the name lost-gone is taken, and the answer to the first attempt was lost (the connection dropped): no live role has that name now: made by that attempt and deleted since, or not, svc cannot tell, so the outcome is unknown: the platform may have made this change; no role holds the name now: `svc roles ls --include-deleted` shows the deleted ones, and running the command again makes it\n',
    ]);
  });

  it('roles create: Ctrl-C while the roles are read back after the 409: interrupted (exit 130), the outcome unknown', async () => {
    const cut = new AbortController();
    later = { cut };
    const r = await svc.run(['roles', 'create', '--name', 'lost-cut', '--permission', 'exception.read'], {
      env: { SVC_BASE_URL: meanwhile().url },
      signal: cut.signal,
    });
    expect([r.code, r.stdout], r.stderr).toEqual([130, '']);
    expect(r.stderr).toMatch(
      /^error: the retry was told the name lost-cut is taken, and the answer to the first attempt was lost \(the connection dropped\): the role may be this command's own, made by that attempt, and svc could not read the roles back to tell \(interrupted[^\n]*\), so the outcome is unknown: the platform may have made this change; check who made the role before running the command again \(`svc roles get lost-cut` shows it\)\n$/,
    );
  });

  // A role of that name made before with other permissions (or another description) is not the
  // lost attempt's: the platform's refusal stands, with the lost attempt named (exit 6).
  it.each([
    ['other permissions', ['--permission', 'exception.write']],
    ['another description', ['--permission', 'exception.read', '--description', 'not that one']],
  ])(
    'roles create answered 409 role_name_taken, the role found with %s: the refusal; exit 6',
    async (_what, more) => {
      const name = `taken-before-${more.length}`;
      await customRole(sandbox(), name);
      const r = await svc.run(['roles', 'create', '--name', name, ...more], {
        env: { SVC_BASE_URL: forgetful().url },
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        6,
        '',
        expect.stringMatching(
          new RegExp(
            `^error: ${esc(LOST)} a role named ${name} already exists in this tenant \\[name: is taken\\] \\(HTTP 409, role_name_taken, request req_\\w+\\); pick another --name, or change that role: svc roles update ${name}\n$`,
          ),
        ),
      ]);
      forgetful().reset();
      const j = await svc.run(['roles', 'create', '--name', name, ...more, '--json'], {
        env: { SVC_BASE_URL: forgetful().url },
      });
      expect([j.code, j.stdout, JSON.parse(j.stderr)]).toEqual([
        6,
        '',
        {
          error: {
            code: 'role_name_taken',
            message: `${LOST} a role named ${name} already exists in this tenant`,
            exit_code: 6,
            hint: `pick another --name, or change that role: svc roles update ${name}`,
            status: 409,
            request_id: expect.stringMatching(/^req_/),
            details: [{ field: 'name', message: 'is taken' }],
            lost_answer: 'the connection dropped',
          },
        },
      ]);
    },
  );

  it('roles assign answered 409 role_deleted: exit 6, the lost attempt named', async () => {
    const id = await customRole(sandbox(), 'lost-grant-a');
    retry = refusal(409, 'role_deleted', 'role lost-grant-a was deleted');
    const r = await svc.run(grant(bulkUser(1), 'lost-grant-a'), { env: { SVC_BASE_URL: refusing().url } });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: ${LOST} role lost-grant-a was deleted (HTTP 409, role_deleted)\n`,
    ]);
    // What the line warns of: the lost attempt made the grant.
    expect((await assignments(sandbox(), id)).active).toBe(1);
  });

  it('roles assign answered 404: exit 5, the lost attempt named; --json too', async () => {
    await customRole(sandbox(), 'lost-grant-b');
    retry = refusal(404, 'not_found', `user ${bulkUser(2)} not found`);
    const r = await svc.run(grant(bulkUser(2), 'lost-grant-b'), { env: { SVC_BASE_URL: refusing().url } });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      5,
      '',
      `error: ${LOST} user ${bulkUser(2)} not found (HTTP 404, not_found); see \`svc roles ls\` for the roles of the tenant\n`,
    ]);
    attempts.clear();
    refusing().reset();
    retry = refusal(404, 'not_found', `user ${bulkUser(3)} not found`);
    const j = await svc.run([...grant(bulkUser(3), 'lost-grant-b'), '--json'], {
      env: { SVC_BASE_URL: refusing().url },
    });
    expect([j.code, j.stdout, JSON.parse(j.stderr)]).toEqual([
      5,
      '',
      {
        error: {
          code: 'not_found',
          message: `${LOST} user ${bulkUser(3)} not found`,
          exit_code: 5,
          hint: 'see `svc roles ls` for the roles of the tenant',
          status: 404,
          lost_answer: 'the connection dropped',
        },
      },
    ]);
  });

  it('roles assign --file: each such row failed with the same words and "lost_answer"; exit 7', async () => {
    const id = await customRole(sandbox(), 'lost-grant-c');
    retry = refusal(409, 'role_deleted', 'role lost-grant-c was deleted');
    const path = svc.file(
      'lost-c.csv',
      `user,role\n${bulkUser(4)},lost-grant-c\n${bulkUser(5)},lost-grant-c\n`,
    );
    const argv = [
      'roles',
      'assign',
      '--file',
      path,
      '--expires-in',
      '1d',
      '--justification',
      'x',
      '--yes',
      '--concurrency',
      '1',
    ];
    const r = await svc.run([...argv, '--ndjson'], { env: { SVC_BASE_URL: refusing().url } });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.line, row.status, row.outcome, row.error])).toEqual(
      [2, 3].map((line) => [
        line,
        'failed',
        undefined,
        {
          code: 'role_deleted',
          message: `${LOST} role lost-grant-c was deleted`,
          status: 409,
          lost_answer: 'the connection dropped',
        },
      ]),
    );
    const [summary, last] = timeless(r.stderr).trim().split('\n');
    expect([r.code, summary]).toEqual([7, '0 granted, 2 failed in Acme Treasury (acme-treasury) (T)']);
    const { error } = JSON.parse(last!);
    // The lost first attempts may have acted: not "nothing done" (review27a F5).
    expect([error.code, error.message]).toEqual([
      'partial_failure',
      `2 of 2 items failed: line 2: ${LOST} role lost-grant-c was deleted; line 3: ${LOST} role lost-grant-c was deleted`,
    ]);
  });
});

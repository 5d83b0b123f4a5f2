/**
 * Grant answers that do not say the grant was made (attack26b F5): a 2xx to a grant or to a move
 * of its expiry whose `status` says it ended (revoked, expired, role_deleted) is no grant,
 * whatever the status code: an unknown outcome (exit 1; a --file or apply row failed with outcome
 * unknown, exit 7) naming `roles holders` to check, never ✓. An answer without `status` (another
 * server) is still taken as the grant, and so is one with a word svc does not know, which names no
 * ended state, with one warning (review26a L1).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 40 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-grant-answers-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const viaProxy = (argv: string[], input?: string) =>
  svc.run(argv, {
    env: { SVC_BASE_URL: proxy().url },
    now: Date.now(),
    ...(input === undefined ? {} : { stdin: input }),
  });
/** `svc apply` through the proxy of a file granting `user` tenant_viewer (file and journal `name`). */
const applyGrant = (user: string, name: string) =>
  viaProxy([
    'apply',
    '-f',
    writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - { user: ${user}, role: tenant_viewer, justification: apply }\n`,
    ),
    '--yes',
    '--ndjson',
    '--journal',
    join(dir, `${name}.journal`),
  ]);
const grant = (user: string, ...more: string[]) => [
  ...['roles', 'assign', user, 'tenant_viewer', '--expires-in', '1d', '--justification', 'x'],
  ...more,
];
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;
const MOVE = /^\/v1\/users\/[^/]+\/roles\/[^/]+$/;
/** Answers to `method` on paths `path` matches, with `fields` changed. */
const answersSay =
  (method: string, path: RegExp, fields: Record<string, unknown>) =>
  (answer: Reshaped): void => {
    if (answer.method === method && path.test(answer.path) && answer.status < 300)
      Object.assign(answer.body as object, fields);
  };
const revoked = { status: 'revoked', revoked_by: 'usr_admin', revocation_audit_trail_id: 'aud_x' };
const unknownHint = (status: number, role = 'tenant_viewer') =>
  `svc saved and printed nothing, but the server answered ${status} \\(request req_\\w+\\) and may have made the change: check before running the command again \\(\`svc [^\`]*roles holders ${role}\` shows whether it was\\)`;

describe('a grant answered with a status other than active', () => {
  it('roles assign answered status "revoked": exit 1, outcome unknown, roles holders named, no ✓', async () => {
    const user = bulkUser(1);
    proxy().set({ reshape: answersSay('POST', GRANT, revoked) });
    const r = await viaProxy(grant(user));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to POST /v1/users/${user}/roles says its status is "revoked", not active; ${unknownHint(201)}\n$`,
      ),
    );
  });

  it('--json: the error says the outcome is unknown', async () => {
    const user = bulkUser(2);
    proxy().set({ reshape: answersSay('POST', GRANT, { status: 'expired' }) });
    const r = await viaProxy(grant(user, '--json'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const error = JSON.parse(r.stderr).error;
    expect(error.message).toBe(
      `the server's answer to POST /v1/users/${user}/roles says its status is "expired", not active`,
    );
    expect(error.outcome).toBe('unknown');
  });

  it('review26a L1: a word svc does not know ("granted") names no ended state: ✓ granted, one warning', async () => {
    const user = bulkUser(3);
    proxy().set({ reshape: answersSay('POST', GRANT, { status: 'granted' }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✓ granted tenant_viewer to /);
    expect(r.stderr).toContain(
      'warning: the server gives the grant the status "granted", which svc does not know (it names no ended state)\n',
    );
    const file = await viaProxy(
      ['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'x', '--yes', '--ndjson'],
      `user,role\n${bulkUser(24)},tenant_viewer\n`,
    );
    expect(file.code, file.stderr).toBe(0);
    const rows = ndjson(file.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.note])).toEqual([
      [
        'ok',
        'the server gives the grant the status "granted", which svc does not know (it names no ended state)',
      ],
    ]);
  });

  it('no status (another server), or ACTIVE: granted, exit 0', async () => {
    proxy().set({
      reshape: (answer) => {
        if (answer.method === 'POST' && GRANT.test(answer.path))
          delete (answer.body as { status?: string }).status;
      },
    });
    const bare = await viaProxy(grant(bulkUser(4)));
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toMatch(/^✓ granted tenant_viewer to /);
    proxy().set({ reshape: answersSay('POST', GRANT, { status: 'ACTIVE' }) });
    const upper = await viaProxy(grant(bulkUser(5)));
    expect(upper.code, upper.stderr).toBe(0);
    expect(upper.stderr).toMatch(/^✓ granted tenant_viewer to /);
  });

  it('--extend answered status "expired": exit 1, no ✓', async () => {
    const user = bulkUser(6);
    const first = await viaProxy(grant(user));
    expect(first.code, first.stderr).toBe(0);
    proxy().set({ reshape: answersSay('PATCH', MOVE, { status: 'expired' }) });
    const r = await viaProxy([
      ...['roles', 'assign', user, 'tenant_viewer', '--expires-in', '3d', '--justification', 'y', '--extend'],
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to PATCH /v1/users/${user}/roles/tenant_viewer says its status is "expired", not active; ${unknownHint(200)}\n$`,
      ),
    );
  });

  it('roles assign --file: rows answered "revoked" are unknown, never ok; exit 7', async () => {
    proxy().set({ reshape: answersSay('POST', GRANT, revoked) });
    const file = `user,role\n${bulkUser(7)},tenant_viewer\n${bulkUser(8)},tenant_viewer\n`;
    const r = await viaProxy(
      ['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'x', '--yes', '--ndjson'],
      file,
    );
    expect(r.code).toBe(7);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.outcome, (row.error as { message: string }).message])).toEqual(
      [7, 8].map((n) => [
        'failed',
        'unknown',
        `the server accepted the request (HTTP 201) but the server's answer to POST /v1/users/${bulkUser(n)}/roles says its status is "revoked", not active, so the outcome is unknown: check on the platform whether it was made`,
      ]),
    );
    expect(r.stderr).not.toContain('✓');
  });

  it('roles assign --file --extend: a move answered "expired" is unknown, never ok', async () => {
    const user = bulkUser(9);
    const first = await viaProxy(grant(user));
    expect(first.code, first.stderr).toBe(0);
    proxy().set({ reshape: answersSay('PATCH', MOVE, { status: 'expired' }) });
    const r = await viaProxy(
      [
        ...['roles', 'assign', '--file', '-', '--expires-in', '3d', '--justification', 'y'],
        ...['--extend', '--yes', '--ndjson'],
      ],
      `user,role\n${user},tenant_viewer\n`,
    );
    expect(r.code).toBe(7);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.outcome])).toEqual([['failed', 'unknown']]);
    expect(r.stderr).not.toContain('✓');
  });

  it('svc apply: a grant answered "revoked" is unknown, never applied; exit 7', async () => {
    const user = bulkUser(10);
    proxy().set({ reshape: answersSay('POST', GRANT, revoked) });
    const r = await applyGrant(user, 'revoked');
    expect(r.code).toBe(7);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.kind, row.status, row.outcome])).toEqual([['grant', 'failed', 'unknown']]);
    expect(r.stderr).not.toContain('✓');
  });
});

/**
 * attack26b F6: a 2xx to a grant carrying a grant this request clearly did not make (assigned by
 * someone else, or days before the run) is the grant in place, as a 409 says it
 * (already_assigned, nothing changed), never "✓ granted" (grantAnswerNotMade,
 * src/platform/found-after-lost.ts). Its assigned_at counts only days before the run's start (two
 * clocks: test/commands/cached-answers-clock.test.ts grants through a Date 3 h ahead).
 * review26a H1: the justification is request-only: null, or the server's tidied form of it, is no
 * evidence: the grant made is reported granted.
 */
describe('a grant answered 2xx with a grant made before, by someone else', () => {
  /** POST grants answered 200 with an old grant of the user (`fields` over it). */
  const oldGrant =
    (fields: Record<string, unknown> = {}) =>
    (answer: Reshaped): void => {
      if (answer.method !== 'POST' || !GRANT.test(answer.path) || answer.status >= 300) return;
      answer.status = 200;
      Object.assign(answer.body as object, {
        assigned_by: 'usr_someone',
        assigned_at: '2025-01-01T00:00:00Z',
        justification: 'old',
        audit_trail_id: 'aud_old',
        ...fields,
      });
    };

  it('roles assign: already_assigned, since when and by whom, why, nothing granted; no ✓', async () => {
    const user = bulkUser(11);
    proxy().set({ reshape: oldGrant({ expires_at: '2027-01-01T00:00:00Z' }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `skipped: already_assigned — ${user} already holds tenant_viewer since 2025-01-01T00:00:00Z by usr_someone until 2027-01-01T00:00:00Z (audit trail aud_old); nothing changed (the server answered with that grant: it was assigned 2025-01-01T00:00:00Z, days before this run)\n` +
        `to move its expiry: svc roles assign ${user} tenant_viewer --extend --expires-in DURATION --justification TEXT\n`,
    );
  });

  it('--json: the grant in place, marked already_assigned', async () => {
    const user = bulkUser(12);
    proxy().set({ reshape: oldGrant() });
    const r = await viaProxy(grant(user, '--json'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ already_assigned: true, assigned_by: 'usr_someone' });
  });

  it('another justification, assigned now by someone else: not this request’s either', async () => {
    const user = bulkUser(13);
    proxy().set({ reshape: oldGrant({ assigned_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'nothing changed (the server answered with that grant: it was assigned by usr_someone, not by you (usr_admin))\n',
    );
    expect(r.stderr).not.toContain('✓');
  });

  it('roles assign --file: the row skipped, already_assigned, its note saying why; never ok', async () => {
    proxy().set({ reshape: oldGrant() });
    const r = await viaProxy(
      ['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'new', '--yes', '--ndjson'],
      `user,role\n${bulkUser(14)},tenant_viewer\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.reason, row.note])).toEqual([
      [
        'skipped',
        'already_assigned',
        "the server answered with a grant in place: it was assigned 2025-01-01T00:00:00Z, days before this run; the row's justification was sent but not recorded: the platform left the grant in place as it was, and the audit trail keeps the justification of the change that set the grant, not the row's",
      ],
    ]);
    expect(r.stderr).toMatch(/^✓ 0 granted, 1 skipped in /m);
  });

  it('svc apply: the grant skipped, already_assigned, its note saying why; never applied', async () => {
    const user = bulkUser(15);
    proxy().set({ reshape: oldGrant() });
    const r = await applyGrant(user, 'old');
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.kind, row.status, row.reason, row.note])).toEqual([
      [
        'grant',
        'skipped',
        'already_assigned',
        "the server answered with a grant in place: it was assigned 2025-01-01T00:00:00Z, days before this run; the file's justification was sent but not recorded: the platform left the grant in place as it was, and the audit trail keeps the justification of the change that set the grant, not the file's",
      ],
    ]);
  });

  it('a grant made now with the justification sent: granted, as before', async () => {
    const user = bulkUser(16);
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✓ granted tenant_viewer to /);
  });

  /** POST grants answered as made, with `fields` changed. */
  const madeSaying = (fields: Record<string, unknown>) => answersSay('POST', GRANT, fields);

  it('review26a H1: justification answered null: ✓ granted, never already_assigned', async () => {
    const user = bulkUser(17);
    proxy().set({ reshape: madeSaying({ justification: null }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✓ granted tenant_viewer to /);
    expect(r.stderr).not.toContain('already_assigned');
  });

  it('review26a H1: justification answered tidied ("ticket  42" as "ticket 42"): ✓ granted', async () => {
    const user = bulkUser(18);
    proxy().set({ reshape: madeSaying({ justification: 'ticket 42' }) });
    const argv = [
      'roles',
      'assign',
      user,
      'tenant_viewer',
      '--expires-in',
      '1d',
      '--justification',
      'ticket  42',
    ];
    const r = await viaProxy(argv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✓ granted tenant_viewer to /);
  });

  it('review26a H1: roles assign --file, justification answered null: every row granted', async () => {
    proxy().set({ reshape: madeSaying({ justification: null }) });
    const r = await viaProxy(
      [
        'roles',
        'assign',
        '--file',
        '-',
        '--expires-in',
        '1d',
        '--justification',
        'bulk',
        '--yes',
        '--ndjson',
      ],
      `user,role\n${bulkUser(19)},tenant_viewer\n${bulkUser(20)},tenant_viewer\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => row.status)).toEqual(['ok', 'ok']);
    expect(r.stderr).toMatch(/^✓ 2 granted in /m);
  });

  it('review26a H1: svc apply, justification answered null: applied', async () => {
    const user = bulkUser(21);
    proxy().set({ reshape: madeSaying({ justification: null }) });
    const r = await applyGrant(user, 'null');
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.kind, row.status])).toEqual([['grant', 'ok']]);
  });

  // review26b H1: the reference gives no form for assigned_by, so the caller is any of the forms
  // /v1/me gives (its id, its e-mail, a key's issuer; a prefixed `user:ID`): the grant is made.
  it.each([
    ['null justification', 22, { justification: null, assigned_by: 'ada@acme.example' }],
    ['no justification', 25, { justification: undefined, assigned_by: 'user:usr_admin' }],
  ])('review26b H1: %s, assigned_by the caller in another form: ✓ granted', async (_what, n, reshaped) => {
    const user = bulkUser(n);
    proxy().set({ reshape: madeSaying(reshaped) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('nothing changed');
    expect(r.stderr).toMatch(/^✓ granted tenant_viewer to /m);
  });

  // s27 item 1: an answer naming another granter cannot be "this call made it", nor, with the
  // justification sent (or none answered), "nothing changed": svc cannot tell. One rule
  // (grantAnswerNotMade) for the single verb, --file and apply.
  const otherGranter = (justification: string | null | undefined) =>
    madeSaying({ justification, assigned_by: 'usr_someone' });
  const notYours =
    'says it was assigned by usr_someone, not by you (usr_admin), so svc cannot tell whether this request made it';
  it.each([
    ['the justification sent', 27, 'x'],
    ['no justification', 31, undefined],
    ['null justification', 32, null],
  ])('assigned by someone else, %s: exit 1, outcome unknown, no ✓', async (_what, n, said) => {
    const user = bulkUser(n);
    proxy().set({ reshape: otherGranter(said) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to POST /v1/users/${user}/roles ${notYours.replace(/[()]/g, '\\$&')}; ${unknownHint(201)}\n$`,
      ),
    );
  });

  it('assigned by someone else, the justification sent: --json says the outcome is unknown', async () => {
    proxy().set({ reshape: otherGranter('x') });
    const r = await viaProxy(grant(bulkUser(28), '--json'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.outcome).toBe('unknown');
  });

  it('assigned by someone else, the justification sent: roles assign --file, the row unknown; exit 7', async () => {
    proxy().set({ reshape: otherGranter('bulk') });
    const r = await viaProxy(
      [
        'roles',
        'assign',
        '--file',
        '-',
        '--expires-in',
        '1d',
        '--justification',
        'bulk',
        '--yes',
        '--ndjson',
      ],
      `user,role\n${bulkUser(29)},tenant_viewer\n`,
    );
    expect(r.code, r.stderr).toBe(7);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.outcome, (row.error as { message: string }).message])).toEqual([
      [
        'failed',
        'unknown',
        `the server accepted the request (HTTP 201) but the server's answer to POST /v1/users/${bulkUser(29)}/roles ${notYours}, so the outcome is unknown: check on the platform whether it was made`,
      ],
    ]);
    expect(r.stderr).not.toContain('✓');
  });

  it('assigned by someone else, the justification sent: svc apply, the grant unknown; exit 7', async () => {
    proxy().set({ reshape: otherGranter('apply') });
    const r = await applyGrant(bulkUser(30), 'other-granter');
    expect(r.code, r.stderr).toBe(7);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.kind, row.status, row.outcome])).toEqual([['grant', 'failed', 'unknown']]);
    expect(r.stderr).not.toContain('✓');
  });

  // review27b M2: who the caller is cannot be read (GET /v1/me refused): the granter named may be
  // the caller in another form or someone else; neither ✓ nor "nothing changed".
  const meRefused = (answer: Reshaped): void => {
    if (answer.method === 'GET' && answer.path === '/v1/me') {
      answer.status = 403;
      answer.body = { error: { code: 'forbidden', message: 'refused by the test proxy' } };
    }
  };
  const notRead =
    'says it was assigned by usr_someone, and svc could not read who you are (GET /v1/me), so svc cannot tell whether this request made it';
  it('assigned by someone else, /v1/me refused: exit 1, outcome unknown, no ✓', async () => {
    const user = bulkUser(33);
    const other = otherGranter('x');
    proxy().set({
      reshape: (answer) => {
        other(answer);
        return meRefused(answer);
      },
    });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to POST /v1/users/${user}/roles ${notRead.replace(/[()]/g, '\\$&')}; ${unknownHint(201)}\n$`,
      ),
    );
  });

  // Since brief fixgrant4 item 3 a --file run reads who the caller is before its first grant: a
  // read refused there stops the run with nothing sent (it was every row unknown, exit 7, each
  // grant made): test/commands/roles/caller-at-start.test.ts.
  it('/v1/me refused: roles assign --file stops before any grant, exit 4 (was: every row unknown, exit 7)', async () => {
    const other = otherGranter('bulk');
    proxy().set({
      reshape: (answer) => {
        other(answer);
        return meRefused(answer);
      },
    });
    const r = await viaProxy(
      [
        ...['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'bulk'],
        ...['--yes', '--ndjson'],
      ],
      `user,role\n${bulkUser(34)},tenant_viewer\n${bulkUser(35)},tenant_viewer\n`,
    );
    expect([r.code, r.stdout], r.stderr).toEqual([4, '']);
    expect(JSON.parse(r.stderr).error.message).toMatch(
      /^svc could not read who you are \(GET \/v1\/me: .*; nothing was granted$/,
    );
    expect(proxy().seen.filter((line) => line.startsWith('POST '))).toEqual([]);
    expect(r.stderr).not.toContain('✓');
  });

  it('another justification answered, assigned by someone else: already_assigned', async () => {
    const user = bulkUser(26);
    proxy().set({ reshape: madeSaying({ justification: 'their own', assigned_by: 'usr_someone' }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'nothing changed (the server answered with that grant: it was assigned by usr_someone, not by you (usr_admin))\n',
    );
    expect(r.stderr).not.toContain('✓');
  });

  it('review26a H1: the justification sent, but assigned three days before: already_assigned', async () => {
    const user = bulkUser(23);
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    proxy().set({ reshape: madeSaying({ assigned_at: old }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `nothing changed (the server answered with that grant: it was assigned ${old}, days before this run)\n`,
    );
    expect(r.stderr).not.toContain('✓');
  });
});

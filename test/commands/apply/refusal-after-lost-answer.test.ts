import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { APAC, as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// review24f M1, for svc apply (its steps run through the bulk runner): a change whose first attempt
// reached the platform and lost its answer (the connection dropped), and whose retry was refused,
// says what every command says: the lost attempt may have acted. Where the refusal says the change
// is so already (a role of that name with the planned permissions, the grant held as planned), it
// is most likely that attempt's: this run's (found_after_lost_answer, as a bulk grant's), never
// "created by another run" or "already assigned", skipped.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-apply-lost-refusal-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LOST =
  "an earlier attempt's answer was lost (the connection dropped) and it may have acted; this answer may describe what it left:";
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;
const changes = (method: string, path: string) =>
  (method === 'POST' && (path === '/v1/roles' || GRANT.test(path))) ||
  (method === 'DELETE' && path.startsWith('/v1/roles/'));

/** The retry's answer (attempt 2 of a role's creation or a grant); attempt 1 is passed on and dropped. */
let retry: ReturnType<typeof refusal> | undefined;
const attempts = new Map<string, number>();
afterEach(() => {
  attempts.clear();
  retry = undefined;
  refusing().reset();
  forgetful().reset();
});
const refusing = useLossyProxy(svc.sandbox, {
  lose: (method, path, seen) => (changes(method, path) && seen === 1 ? 'drop' : false),
  refuse: (method, path) => {
    if (!changes(method, path)) return undefined;
    const n = (attempts.get(path) ?? 0) + 1;
    attempts.set(path, n);
    return n >= 2 ? retry : undefined;
  },
});
// A platform that keeps no stored answers: each attempt passed on with a fresh key, so the retry
// is the sandbox's own answer to a second request.
let fresh = 0;
const forgetful = useLossyProxy(svc.sandbox, {
  lose: (method, path, seen) => (changes(method, path) && seen === 1 ? 'drop' : false),
  body: (method, path, body) =>
    changes(method, path)
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
});

async function apply(name: string, yaml: string, url: string, mode = '--ndjson') {
  const file = writeFile(dir, `${name}.yaml`, `version: 1\nblocks:\n  - tenants: acme-labs\n${yaml}`);
  const r = await svc.run(
    ['apply', '-f', file, '--yes', '--journal', join(dir, `${name}.journal`), ...(mode ? [mode] : [])],
    {
      env: { SVC_BASE_URL: url },
    },
  );
  return {
    ...r,
    rows:
      mode === '--ndjson'
        ? r.stdout
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l))
        : [],
  };
}

describe('svc apply: a refusal to the retry of a change whose answer was lost', () => {
  it("a role's creation told role_name_taken: this run's (found_after_lost_answer), never created_by_another_run", async () => {
    retry = refusal(409, 'role_name_taken', 'a role named lost-desk already exists');
    const r = await apply(
      'role',
      '    roles:\n      - { name: lost-desk, permissions: [exception.read] }\n',
      refusing().url,
    );
    expect(r.rows).toEqual([
      {
        line: 5,
        tenant: 'acme-labs',
        kind: 'role',
        action: 'create',
        name: 'lost-desk',
        status: 'ok',
        reason: 'found_after_lost_answer',
        id: expect.stringMatching(/^role_/),
        note: 'the answer to the creation was lost (the connection dropped) and its retry found it made: most likely by that attempt',
      },
    ]);
    expect([r.code, r.stderr.replace(/ \(\d+\.\d s\)/, ' (T)')]).toEqual([
      0,
      '✓ 1 applied (1 found done by a retry after the answer to the first attempt was lost) (T)\n',
    ]);
  });

  it("a grant told assignment_exists by a platform without stored answers: this run's, never already_assigned", async () => {
    await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'lost-grant',
      permissions: ['exception.read'],
    });
    const r = await apply(
      'grant',
      `    roles:\n      - { name: lost-grant, permissions: [exception.read] }\n    grants:\n      - { user: ${user(1)}, role: lost-grant, justification: lost }\n`,
      forgetful().url,
    );
    expect(r.rows.map((row) => [row.kind, row.status, row.reason, row.expires_at, row.note])).toEqual([
      [
        'grant',
        'ok',
        'found_after_lost_answer',
        null,
        'the answer to the grant was lost (the connection dropped) and its retry found it made: most likely by that attempt',
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
    // On the row's line too (text), as a bulk grant's says it.
    await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'lost-grant-t',
      permissions: ['exception.read'],
    });
    const t = await apply(
      'grant-text',
      `    roles:\n      - { name: lost-grant-t, permissions: [exception.read] }\n    grants:\n      - { user: ${user(3)}, role: lost-grant-t, justification: lost }\n`,
      forgetful().url,
      '',
    );
    expect(t.stdout).toContain(
      '\tok\t\tfound_after_lost_answer: the answer to the grant was lost (the connection dropped) and its retry found it made: most likely by that attempt\n',
    );
  });

  it("a role's delete told role_deleted (--prune): this run's, never already_removed", async () => {
    const role = await as(svc.sandbox(), APAC, 'POST', '/v1/roles', {
      name: 'lost-prune',
      permissions: ['exception.read'],
    });
    retry = refusal(409, 'role_deleted', 'role lost-prune was deleted');
    const file = writeFile(
      dir,
      'prune.yaml',
      'version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: acme-apac\n    roles: []\n',
    );
    const r = await svc.run(
      ['apply', '-f', file, '--prune', '--yes', '--journal', join(dir, 'prune.journal'), '--ndjson'],
      {
        env: { SVC_BASE_URL: refusing().url },
      },
    );
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.name, row.action, row.status, row.reason, row.note])).toEqual([
      [
        'lost-prune',
        'delete',
        'ok',
        'found_after_lost_answer',
        'the answer to the delete was lost (the connection dropped) and its retry found the role deleted: most likely by that attempt',
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await as(svc.sandbox(), APAC, 'GET', `/v1/roles/${role.id}`)).deleted_at).not.toBeNull();
  });

  it('any other refusal fails the step with the words of every command and "lost_answer"', async () => {
    await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'lost-gone',
      permissions: ['exception.read'],
    });
    retry = refusal(409, 'role_deleted', 'role lost-gone was deleted');
    const r = await apply(
      'deleted',
      `    roles:\n      - { name: lost-gone, permissions: [exception.read] }\n    grants:\n      - { user: ${user(2)}, role: lost-gone, justification: lost }\n`,
      refusing().url,
    );
    expect(r.rows.map((row) => [row.kind, row.status, row.error])).toEqual([
      [
        'grant',
        'failed',
        {
          code: 'role_deleted',
          message: `${LOST} role lost-gone was deleted`,
          status: 409,
          lost_answer: 'the connection dropped',
        },
      ],
    ]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error.message).toMatch(
      new RegExp(
        `^1 of 1 item failed: acme-labs: grant .*: ${LOST.replace(/[()]/g, '\\$&')} role lost-gone was deleted$`,
      ),
    );
  });
});

/**
 * A write to stdout that fails otherwise than by a closed pipe (ENOSPC on a full disk, EIO): the
 * command says what happened — that a change was made, how far a bulk run got and how to resume —
 * with exit 1, never "a bug in svc". In-process over a stdout whose writes fail (as process.stdout's
 * do on /dev/full); test/attack/pipe-close.test.ts runs the binary against a real /dev/full.
 */
import { describe, expect, it } from 'vitest';
import { afterResuming, assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const full = { stdoutFails: 'ENOSPC' };
const request = 'req_[0-9a-f]+';

describe('stdout fails (ENOSPC)', () => {
  it('a single change says it was made, with its request, and exits 1', async () => {
    const r = await svc.run(['roles', 'create', '--name', 'full-1', '--permission', 'exception.read'], full);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: cannot write to stdout \\(ENOSPC\\), but the change was made: POST /v1/roles answered 201: created role_\\w+ \\(request ${request}\\); its output was lost; check the result before running the command again\\n$`,
      ),
    );
    const listed = await svc.run(['roles', 'ls', '--custom', '--json']);
    expect(JSON.parse(listed.stdout).map((role: { name: string }) => role.name)).toContain('full-1');
  });

  it('--json: the same, as one JSON error object', async () => {
    const r = await svc.run(
      ['roles', 'create', '--name', 'full-2', '--permission', 'exception.read', '--json'],
      full,
    );
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error).toMatchObject({ code: 'stdout_failed', exit_code: 1 });
    expect(error.message).toMatch(
      /^cannot write to stdout \(ENOSPC\), but the change was made: POST \/v1\/roles/,
    );
  });

  it.each([[['tenants', 'ls']], [['completion', 'bash']]])(
    'a command that only reads (%j) says it cannot write, exit 1',
    async (argv) => {
      const r = await svc.run(argv, full);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        1,
        '',
        'error: cannot write to stdout (ENOSPC); check where stdout goes (a full disk, a failed device), then run the command again\n',
      ]);
    },
  );

  it('a bulk run stops, prints its summary and the journal to resume from; the re-run finishes the rest', async () => {
    const id = await customRole(sandbox(), 'full-bulk');
    const rows = [1, 2, 3].map((n) => `${bulkUser(n)},full-bulk,1h,t${n}`).join('\n');
    const path = svc.file('full.csv', `user,role,expires_in,justification\n${rows}\n`);
    const r = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1'], full);
    expect(r.code, r.stderr).toBe(1);
    const [summary, last, ...more] = r.stderr.trimEnd().split('\n');
    // Each result is written before the next item starts: the first failed write stops the run.
    expect([summary, more]).toEqual([
      expect.stringMatching(/^1 granted, 2 not started in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/),
      [],
    ]);
    const { error } = JSON.parse(last!);
    expect(error).toMatchObject({ code: 'stdout_failed', exit_code: 1 });
    expect(`${error.message}; ${error.hint}`).toMatch(
      /^cannot write to stdout \(ENOSPC\) after \d of 3; run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal .+\)$/,
    );
    const made = (await assignments(sandbox(), id)).active;
    expect(made).toBeGreaterThan(0);
    const again = await svc.run(['roles', 'assign', '--file', path, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(afterResuming(again.stderr)).toMatch(new RegExp(`^✓ ${3 - made} granted, ${made} skipped in`));
    expect((await assignments(sandbox(), id)).active).toBe(3);
  });

  it('a dry run says it cannot write and that nothing was changed (exit 1), not that it was interrupted', async () => {
    await customRole(sandbox(), 'full-dry');
    const rows = [5, 6, 7].map((n) => `${bulkUser(n)},full-dry,1h,t`).join('\n');
    const path = svc.file('dry.csv', `user,role,expires_in,justification\n${rows}\n`);
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1'], full);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      expect.stringMatching(
        /^error: cannot write to stdout \(ENOSPC\) after \d of 3; nothing was changed; check where stdout goes \(a full disk, a failed device\), then run the command again\n$/,
      ),
    ]);
  });
});

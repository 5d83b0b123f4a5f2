/**
 * Standard input with no rows is the empty set (s15 pipes15 F6): `… | jq … | svc roles revoke
 * --file -` failed (exit 2, "the file is empty") on the night the filter selected nothing, while
 * an empty DLQ run says "nothing to …" (exit 0). Zero rows on stdin (empty, or a CSV header alone)
 * is now "nothing to grant/revoke" (exit 0; `[]` with --json, nothing with --ndjson), nothing sent;
 * a named file without rows stays an error (likely the wrong file; assign-file.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner, posts } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);

describe('roles assign/revoke --file - with no rows (F6)', () => {
  it.each([
    ['assign', 'grant', '', []],
    ['assign', 'grant', 'user,role,expires_in,justification\n', ['--json']],
    ['revoke', 'revoke', '', ['--yes', '--ndjson']],
    ['revoke', 'revoke', 'user,role\n', ['--yes']],
    ['revoke', 'revoke', '', ['--yes', '--json', '--dry-run']],
  ])('%s: %j with %j is nothing to do, exit 0', async (verb, act, stdin, flags) => {
    const route = verb === 'assign' ? '/v1/users/:id/roles' : '/v1/users/:id/roles/:roleId';
    const before = await posts(sandbox(), route);
    const r = await svc.run(['roles', verb, '--file', '-', ...flags], { stdin });
    const json = flags.includes('--json');
    expect([r.code, r.stdout]).toEqual([0, json ? '[]\n' : '']);
    // A dry run's line says it is one (attack29a F8).
    const dry = flags.includes('--dry-run');
    expect(r.stderr).toBe(
      dry
        ? `dry run: nothing to ${act}: standard input has no rows; nothing was changed\n`
        : `nothing to ${act}: standard input has no rows\n`,
    );
    expect(await posts(sandbox(), route)).toBe(before);
  });

  it('a named file without rows is still refused (exit 2)', async () => {
    const path = svc.file('none.csv', '');
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:1: the file is empty\n`);
  });
});

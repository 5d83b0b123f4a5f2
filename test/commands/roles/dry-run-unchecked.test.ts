import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

// A dry run whose own reads of a row failed after the retries (503, a dropped connection) planned
// the row `fail`, exited 7 and said "fix them"; the real run then granted it (exploratory test
// s12, scale12 M1). A row that could not be checked is not a row that would fail: it is planned
// `unknown`, counted apart, and the dry run fails as a whole (exit 1), as `svc plan` does.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => {
    if (method !== 'GET') return false;
    if (path.includes(`/${bulkUser(2)}/roles`)) return true;
    return path.includes(`/${bulkUser(3)}/roles`) ? 'drop' : false;
  },
});

describe('svc roles assign --file --dry-run when the server does not answer a row check', () => {
  it('plans the row unknown, never fail; exit 1, with what to do; the rows are fine', async () => {
    const role = `unchecked-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = [1, 2, 3, 4].map((n) => `${bulkUser(n)},${role},7d,j`).join('\n');
    const path = svc.file('unchecked.csv', `user,role,expires_in,justification\n${rows}\n`);
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'],
      {
        env,
      },
    );
    const planned = ndjson(r.stdout);
    expect(planned.map((row) => [row.line, row.plan, row.error?.code ?? null])).toEqual([
      [2, 'grant', null],
      [3, 'unknown', 'service_unavailable'],
      [4, 'unknown', 'connection_error'],
      [5, 'grant', null],
    ]);
    expect(planned[1].error.message).toMatch(/^could not be checked: /);
    const [counts, error] = r.stderr.trimEnd().split('\n');
    expect(counts).toBe(
      'dry run: 2 would be granted, 0 would be skipped, 0 would fail, 2 could not be checked',
    );
    const parsed = JSON.parse(error!).error;
    expect([r.code, parsed.code, parsed.exit_code, parsed.hint]).toEqual([
      1,
      'not_checked',
      1,
      'nothing was changed; the rows may be fine: the server did not answer their checks; run the dry run again',
    ]);
    expect(parsed.message).toMatch(/^2 of 4 items could not be checked: line 3: could not be checked: /);

    // Without the faults the same file plans every row, exit 0: nothing was wrong with them.
    const clean = await svc.run(['roles', 'assign', '--file', path, '--dry-run']);
    expect([clean.code, clean.stderr]).toEqual([
      0,
      'dry run: 4 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
  });
});

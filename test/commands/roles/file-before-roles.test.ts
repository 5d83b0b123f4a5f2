/**
 * A bulk file's own problems (which need no server) come first, also when the caller cannot list
 * the tenant's roles (docs12 6): "the whole file is checked first (every bad line is reported,
 * exit 2)", not the role listing's 403 with the file's problems unsaid. A good file still meets
 * the 403 (exit 4): the roles are needed to read its rows.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const auditor = () => svc.env({ SVC_TOKEN: sandbox().issueToken('usr_auditor').token });
const flags = ['--dry-run', '--expires-in', '1h', '--justification', 'quarterly review'];

describe('roles assign --file by a caller who cannot list roles', () => {
  it.each(['assign', 'revoke'])(
    '%s: the file’s bad lines are reported (exit 2), not the 403',
    async (verb) => {
      const path = svc.file(`bad-${verb}.csv`, 'user,role\nusr_y,r,x\nusr_x\n');
      const r = await svc.run(
        ['roles', verb, '--file', path, ...(verb === 'assign' ? flags : ['--dry-run'])],
        {
          env: auditor(),
        },
      );
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n').slice(0, 3)).toEqual([
        `${path}:2: the row has 3 fields and the header row 2: a value that holds a comma must be in double quotes ("r, x")`,
        `${path}:3: the row has 1 field and the header row 2`,
        expect.stringMatching(
          new RegExp(`^error: 2 lines of ${path} have problems; nothing was sent; fix them`),
        ),
      ]);
      expect(r.code).toBe(2);
    },
  );

  it('a file without such problems: the role listing’s refusal (exit 4)', async () => {
    const path = svc.file('good.csv', 'user,role\nusr_viewer,tenant_auditor\n');
    const r = await svc.run(['roles', 'assign', '--file', path, ...flags], { env: auditor() });
    expect(r.stderr).toMatch(/^error: listing roles needs permission role\.read in tenant acme-treasury/);
    expect(r.code).toBe(4);
  });
});

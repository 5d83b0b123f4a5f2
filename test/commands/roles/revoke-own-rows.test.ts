import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRolesRevoke, runRolesRevoke } from '../../../src/commands/roles/revoke.js';
import { ACME, adminGrant, useSandboxContext } from '../../helpers/sandbox.js';

// attack29a F2: `roles revoke --file` revoked the caller's own tenant_admin with no word of it,
// where the single verb asks "Revoke your own tenant_admin grant (usr_admin)". The file's question,
// its dry run (a warning, and the row's note) and its rows now say which rows are your own.
const svc = useSandboxContext();

describe('roles revoke --file: your own rows', () => {
  it('are named in the dry run, on the row, and in the question', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_reviewer', 'tenant_admin');
    const dir = svc.env().SVC_STATE_DIR as string;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'own.csv');
    writeFileSync(file, 'user,role\nusr_lead,tenant_lead\nusr_admin,tenant_admin\n');
    const dry = await svc.run(['roles', 'revoke', '--file', file, '--dry-run', '--json']);
    expect(dry.stderr).toContain(
      'warning: line 3 is your own tenant_admin grant (usr_admin): it is made after every other row\n',
    );
    const rows = JSON.parse(dry.stdout) as Array<{ line: number; note?: string }>;
    expect(rows.map((r) => [r.line, r.note])).toEqual([
      [2, undefined],
      [3, 'your own grant: made after every other row'],
    ]);
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    await expect(runRolesRevoke(ctx, parseRolesRevoke(undefined, undefined, { file }))).rejects.toThrow(
      'cancelled',
    );
    expect(questions[0]).toMatch(
      /^Revoke the 2 role assignments listed in .*own\.csv that are held \(a row whose grant is not is skipped\), in Acme Treasury \(acme-treasury\)\? Line 3 revokes your own tenant_admin grant \(usr_admin\)\. This stops 2 webhooks of usr_admin /,
    );
  });
});

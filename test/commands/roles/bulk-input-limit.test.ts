import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { BULK_INPUT_LIMITS } from '../../../src/bulk/input.js';
import { runBulkFile } from '../../../src/commands/roles/bulk.js';
import { assignments, bulkUser, customRole } from '../../helpers/bulk.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Bulk files had no total bound (s16 fix-journal #2): `yes 'usr_x,role' | svc roles assign --file -`
// copied standard input to its snapshot for ever (filling the disk), and a file of tens of millions
// of short rows kept each in the duplicate check. Now past 256 MiB or 1,000,000 rows the input is
// refused in one line, exit 2, before anything is sent; the tests give smaller limits.
const svc = useSandboxContext({ users: 12 });
const dir = useTempDir('svc-bulk-limit-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `usr_x,tenant_viewer` lines for ever, as `yes` writes them. */
function endless(): Readable {
  const line = Buffer.from('usr_x,tenant_viewer\n'.repeat(512));
  return new Readable({
    read() {
      this.push(line);
    },
  });
}

const options = (file: string, dryRun: boolean, limits = { bytes: 64 * 1024, rows: 10 }) => ({
  file,
  dryRun,
  concurrency: 2,
  journal: undefined,
  defaults: { justification: 'limit' },
  limits,
});

describe('svc roles assign --file: the most one bulk run takes', () => {
  it('documents 256 MiB and 1,000,000 rows', () => {
    expect(BULK_INPUT_LIMITS).toEqual({ bytes: 256 * 1024 * 1024, rows: 1_000_000 });
  });

  it.each([true, false])(
    'an endless standard input is refused past the byte limit (dry run: %s), exit 2',
    async (dryRun) => {
      const { ctx } = svc.context({ stdin: endless() });
      const refused = runBulkFile(ctx, 'assign', options('-', dryRun));
      await expect(refused).rejects.toMatchObject({
        exitCode: 2,
        code: 'input_too_large',
        message: 'stdin holds more than 65536 bytes, the most one bulk run takes; nothing was sent',
        hint: 'check what is piped in (a pipe that ends), or split the rows into several runs',
      });
    },
  );

  it.each([
    ['a file one byte over', 'big'],
    ['a device that never ends', '/dev/zero'],
  ])('%s is refused past the byte limit, exit 2', async (_what, name) => {
    const path = name === 'big' ? join(dir, 'big.csv') : name;
    if (name === 'big') writeFileSync(path, Buffer.alloc(64 * 1024 + 1, 'a'));
    const { ctx } = svc.context();
    await expect(runBulkFile(ctx, 'assign', options(path, true))).rejects.toMatchObject({
      exitCode: 2,
      message: `${path} holds more than 65536 bytes, the most one bulk run takes; nothing was sent`,
      hint: 'split it into files of at most 1,000,000 rows (each with the header row) and run each',
    });
  });

  it('a file over the row limit is refused whole before a row is sent; one at the limit runs', async () => {
    const role = await customRole(svc.sandbox(), 'limit-rows');
    const rows = (n: number) =>
      `user,role,expires_in\n${Array.from({ length: n }, (_, i) => `${bulkUser(i + 1)},limit-rows,8h`).join('\n')}\n`;
    const { ctx } = svc.context({ stdin: rows(11) });
    await expect(runBulkFile(ctx, 'assign', options('-', false))).rejects.toMatchObject({
      exitCode: 2,
      message: 'stdin holds more than 10 rows, the most one bulk run takes; nothing was sent',
    });
    expect((await assignments(svc.sandbox(), role)).total).toBe(0);
    const atLimit = svc.context({ stdin: rows(10) });
    await runBulkFile(atLimit.ctx, 'assign', options('-', false));
    expect((await assignments(svc.sandbox(), role)).total).toBe(10);
  });
});

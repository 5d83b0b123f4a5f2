/**
 * A bulk verb of the tests' own for the one bulk operation (src/bulk/operation.ts): no server,
 * items worked in-process, exact output on a Context over buffers (test/bulk/operation*.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { BulkItem } from '../../src/bulk/item.js';
import { type BulkVerb, runBulkOperation } from '../../src/bulk/operation.js';
import { exitCodeFor } from '../../src/errors.js';
import { NotFoundError } from '../../src/http/errors.js';
import { testContext, type VerbOptions } from './context.js';

export interface Row {
  line?: number;
  key: string;
  status: string;
  note: string;
}

/** A verb over `outcomes` (one item each): `ok`, `fail`, `replayed` (done by an earlier run). */
export function testVerb(
  outcomes: string[],
  extra: Partial<BulkVerb<string, Row>> = {},
): BulkVerb<string, Row> {
  const items = (): Array<BulkItem<string>> =>
    outcomes.map((o, i) => ({ key: `k${i}`, line: i + 2, data: o }));
  const work = async (item: BulkItem<string>) => {
    if (item.data === 'fail')
      throw new NotFoundError({ status: 404, code: 'not_found', message: `${item.key} not found` });
    return item.data === 'replayed' ? { replayed: true } : {};
  };
  return {
    kind: 'test-op',
    // A run of its own unless a test says otherwise (the same identity resumes a kept journal).
    identity: [randomUUID()],
    journal: undefined,
    dryRun: false,
    concurrency: 1,
    words: { act: 'touch', doing: 'touching', done: 'touched' },
    prepare: async () => outcomes.length,
    items,
    work,
    plan: async (item) =>
      item.data === 'fail'
        ? { status: 'failed', error: { code: 'x', message: 'would fail' } }
        : item.data === 'replayed'
          ? { status: 'skipped' }
          : {},
    present: (result, item) => ({
      line: item.line,
      key: item.key,
      status: result.plan ?? result.status,
      note: result.error?.message ?? '',
    }),
    columns: () => [
      { header: 'line', value: (r: Row) => String(r.line ?? '') },
      { header: 'key', value: (r: Row) => r.key },
      { header: 'status', value: (r: Row) => r.status },
      { header: 'note', value: (r: Row) => r.note },
    ],
    describe: (row) => `line ${row.line}: ${row.note}`,
    ...extra,
  };
}

/**
 * Runs `v` on a Context over buffers, in the directories `dirs` gives (useTempDirs), against a
 * server that is never called: its exit code, the error it ended with, stdout and stderr.
 */
export async function runVerb(
  dirs: () => Record<string, string>,
  v: BulkVerb<string, Row>,
  options: VerbOptions = {},
) {
  const made = testContext({
    ...options,
    env: { ...dirs(), SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TENANT: 'ten_1', ...options.env },
  });
  let code = 0;
  let error: unknown;
  try {
    await runBulkOperation(made.ctx, v);
  } catch (e) {
    error = e;
    code = exitCodeFor(e);
  }
  await made.ctx.close();
  return { code, error, stdout: made.stdout(), stderr: made.stderr() };
}

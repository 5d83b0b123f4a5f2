/**
 * review22a F4: a run that ends with every item tried marks its kept journal finished
 * (`{"finished": T}`, truth22 3), so that the same command says it takes up a finished run's
 * failures, not that it resumes one cut short. Two ends wrote no mark, and the next run then spoke
 * of a finished run as of an interrupted one ("resuming the run started at …"):
 * - a journal whose disk filled up before the mark: the run now says so, and what the same command
 *   will say (it does the same either way);
 * - a journal meant to be removed (every item done, or failures that leave nothing to resume) that
 *   could not be: it is now marked where it still takes a line, and the next run's first line says
 *   which finished run it shows again or takes up.
 * Both played through the journal's disk seam (fillableJournalDisk, a remove that fails EROFS).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { fillableJournalDisk } from '../helpers/disk.js';
import { useSandbox } from '../helpers/sandbox.js';
import { createWebhook } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 6 });
const svc = bulkRunner(sandbox);
const timeless = (text: string) => text.replace(/ \(\d+\.\d s\)\n/g, ' (T s)\n');
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The real journal disk, but `journal` cannot be removed (a read-only directory). */
const unremovable = (journal: string) => ({
  ...realJournalDisk,
  remove(path: string) {
    if (path === journal)
      throw Object.assign(new Error(`EROFS: read-only file system, unlink '${path}'`), { code: 'EROFS' });
    realJournalDisk.remove(path);
  },
});
/** The journal's lines after its first, each parsed (a line cut short by a full disk left out). */
function marks(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line));
}

describe('a finished run whose journal could not take the finished line (a full disk)', () => {
  it('says so, and what the same command will call it; the same command then resumes it, as it said', async () => {
    const role = 'end-full';
    await customRole(sandbox(), role);
    const file = svc.file(
      'end-full.csv',
      `user,role,expires_in,justification\n${bulkUser(1)},${role},never,x\nusr_nobody,${role},never,x\n`,
    );
    // Room for the two locks, the first line, the granted row and the refused row (each its
    // in-flight mark and its line): not the finish.
    const { disk, full } = fillableJournalDisk(7);
    const argv = ['roles', 'assign', '--file', file, '--concurrency', '1', '--ndjson'];
    const r = await svc.run(argv, { journalDisk: disk });
    expect(r.code, r.stderr).toBe(7);
    const journal = join(svc.journals, readdirSync(svc.journals).find((f) => f.endsWith('.ndjson'))!);
    const [counts, warning, error] = timeless(r.stderr).trimEnd().split('\n');
    expect(counts).toBe('1 granted, 1 failed in Acme Treasury (acme-treasury) (T s)');
    expect(warning).toBe(
      `warning: this run's end could not be written to its journal ${journal} (no space left on device): the same command will say it is resuming a run cut short, not taking up the failures of a finished run; what it does is the same`,
    );
    expect(JSON.parse(error!).error.exit_code).toBe(7);
    expect(marks(journal).map((line) => Object.keys(line))).toEqual([
      ['sent', 'before', 'on_server_clock'],
      ['key', 'status', 'at', 'detail'],
      ['sent', 'before', 'on_server_clock'],
      ['key', 'status', 'at'],
    ]);

    full.room = Number.POSITIVE_INFINITY;
    const again = await svc.run(argv, { journalDisk: disk });
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr.split('\n')[0]).toMatch(
      new RegExp(`^resuming the run started at ${ISO}: 1 done, 1 to do \\(journal ${literal(journal)}\\)$`),
    );
    // Finished this time: its journal says so.
    expect(marks(journal).at(-1)).toEqual({ finished: expect.stringMatching(new RegExp(`^${ISO}$`)) });
  });
});

describe('a finished run whose journal could not be removed', () => {
  it('every item done: marked all done; the same command shows that finished run again, not "resuming"', async () => {
    const role = 'end-stuck';
    await customRole(sandbox(), role);
    const rows = [2, 3].map((k) => `${bulkUser(k)},${role},never,stuck`).join('\n');
    const file = svc.file('end-stuck.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = `${svc.dir}/end-stuck.ndjson`;
    const argv = ['roles', 'assign', '--file', file, '--journal', journal, '--ndjson'];
    const r = await svc.run(argv, { journalDisk: unremovable(journal) });
    expect(r.code).toBe(0);
    // The existing line, unchanged (journal-unremovable.test.ts).
    expect(timeless(r.stderr)).toBe(
      '✓ 2 granted in Acme Treasury (acme-treasury) (T s)\n' +
        `warning: the run's result stands, but its journal ${journal} could not be removed (read-only file system): the same command would print these results again and do nothing; remove it (\`rm ${journal}\`) before you run it again\n`,
    );
    const [mark] = marks(journal).slice(-1);
    expect(mark).toEqual({ all_done: expect.stringMatching(new RegExp(`^${ISO}$`)) });

    // Its dry run reads the journal, changes nothing, and says the same.
    const dry = await svc.run([...argv, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^a dry run, showing again the run started at ${ISO} \\(it finished at ${literal(mark!.all_done as string)}, every item done\\): 2 done, 0 to do \\(journal ${literal(journal)}\\)$`,
      ),
    );
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(timeless(again.stderr)).toMatch(
      new RegExp(
        `^showing again the run started at ${ISO} \\(it finished at ${literal(mark!.all_done as string)}, every item done\\): 2 done, 0 to do \\(journal ${literal(journal)}\\)\n✓ 0 granted, 2 skipped in Acme Treasury \\(acme-treasury\\) \\(T s\\)\n$`,
      ),
    );
    expect(ndjson(again.stdout).map((row) => [row.status, row.reason])).toEqual([
      ['skipped', 'journal'],
      ['skipped', 'journal'],
    ]);
    expect(existsSync(journal)).toBe(false);
  });

  it("one item refused (nothing to resume): marked finished; the same command takes up that finished run's failure", async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    const journal = `${svc.dir}/end-refused.ndjson`;
    const argv = ['webhooks', 'dlq', 'discard', webhook, 'dlq_nope', '--yes', '--journal', journal];
    const r = await svc.run(argv, { journalDisk: unremovable(journal) });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr.split('\n')[0]).toBe(
      `warning: the run's result stands, but its journal ${journal} could not be removed (read-only file system): the same command would resume this run (its item tried again); remove it (\`rm ${journal}\`) before you run it again`,
    );
    const [mark] = marks(journal).slice(-1);
    expect(mark).toEqual({ finished: expect.stringMatching(new RegExp(`^${ISO}$`)) });
    const started = readStart(journal);

    const again = await svc.run(argv);
    expect(again.code).toBe(5);
    expect(again.stderr.split('\n')[0]).toBe(
      `taking up the failures of the run started at ${started} (it finished at ${mark!.finished}): 0 done, 1 to do (journal ${journal})`,
    );
  });
});

/** The journal's run start, as its first line has it. */
function readStart(path: string): string {
  return JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).started_at;
}

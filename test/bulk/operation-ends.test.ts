// Over 300 lines: the one bulk operation's rarer ends, one case per rule, each with the verb of
// test/helpers/bulk-verb.ts; apart, the rules would each need that verb's set-up again.
/**
 * The one bulk operation's rarer ends (session 23, src/bulk/operation.ts measured alone with the
 * bulk selection: each case here held a mutant that survived): a resumed queue with nothing left,
 * when a resumed run asks first, a queue source read again once its items settle and cut by a stop,
 * the shown status of unknown outcomes, answers replayed at the first attempt, what Ctrl-C says
 * of requests on the wire, a resumed run's first line (no count, the platform's clock at the
 * minute's edge), an item both journaled and still in the source, and a journal named without a
 * server or tenant.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkItem, BulkResult } from '../../src/bulk/item.js';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import type { BulkVerb } from '../../src/bulk/operation.js';
import { ApiError, ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { attemptsOnTheWire } from '../../src/http/retry.js';
import { type Row, runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs, type VerbOptions } from '../helpers/context.js';

const dirs = useTempDirs();
const run = (v: BulkVerb<string, Row>, options: VerbOptions = {}) => runVerb(dirs, v, options);
const journalAt = (name: string) => join(dirs().SVC_STATE_DIR!, `${name}.ndjson`);
const START = '2026-01-15T12:00:00Z';
const journals = () => readdirSync(join(dirs().SVC_STATE_DIR!, 'journals'));

/** A queue verb resuming `journal`: its source holds `source` (keys), prepare counts `left`. */
function resumedQueue(
  journal: string,
  source: string[],
  left: number | undefined,
  extra: Partial<BulkVerb<string, Row>> = {},
): BulkVerb<string, Row> {
  return testVerb([], {
    journal,
    identity: ['queue'],
    prepare: async () => left,
    items: () => source.map((key) => ({ key, data: 'ok' })),
    fromJournal: (key) => ({ key, data: 'ok' }),
    ...extra,
  });
}

/** A first run of the queue at `journal` whose `k0` is done and `k1` failed: the journal is kept. */
async function firstRun(journal: string): Promise<void> {
  const first = await run(testVerb(['ok', 'fail'], { journal, identity: ['queue'] }));
  expect(first.code).toBe(7);
}

describe('a resumed queue run with nothing done, nothing left and nothing owed', () => {
  const emptyQueue = (journal: string, dryRun: boolean) =>
    resumedQueue(journal, [], 0, { dryRun, empty: 'the queue is empty; nothing to touch' });

  it('says the queue is empty and removes the journal; a dry run of it leaves the journal', async () => {
    const journal = journalAt('empty');
    // Its first run's one item failed: nothing is done, the journal is kept for the failure.
    expect((await run(testVerb(['fail'], { journal, identity: ['queue'] }))).code).toBe(7);
    expect(await run(emptyQueue(journal, true))).toMatchObject({
      code: 0,
      stdout: '',
      // Said to be a dry run (attack29a F8).
      stderr: 'dry run: the queue is empty; nothing to touch; nothing was changed\n',
    });
    expect(existsSync(journal)).toBe(true);
    expect(await run(emptyQueue(journal, false))).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'the queue is empty; nothing to touch\n',
    });
    expect(existsSync(journal)).toBe(false);
  });

  it('a journal that cannot be removed: the run stands, and one line says what the same command would do', async () => {
    const journal = journalAt('stuck');
    expect((await run(testVerb(['fail'], { journal, identity: ['queue'] }))).code).toBe(7);
    const journalDisk = {
      ...realJournalDisk,
      remove(path: string) {
        throw Object.assign(new Error(`EROFS: read-only file system, unlink '${path}'`), { code: 'EROFS' });
      },
    };
    expect(await run(emptyQueue(journal, false), { journalDisk })).toMatchObject({
      code: 0,
      stderr:
        'the queue is empty; nothing to touch\n' +
        `warning: the run's result stands, but its journal ${journal} could not be removed (read-only file system): the same command would say this again; remove it (\`rm ${journal}\`) before you run it again\n`,
    });
    expect(existsSync(journal)).toBe(true);
  });
});

describe('what a run asks first (BulkVerb.confirm)', () => {
  const asking = (asked: Array<number | undefined>) => ({
    confirm: async (count: number | undefined) => {
      asked.push(count);
    },
  });

  it('a new run asks with its count; a resumed one with items left asks with what is left', async () => {
    const asked: Array<number | undefined> = [];
    expect((await run(testVerb(['ok', 'ok'], asking(asked)))).code).toBe(0);
    const journal = journalAt('ask-left');
    await firstRun(journal);
    asked.length = 0;
    expect((await run(resumedQueue(journal, ['k1'], 1, asking(asked)))).code).toBe(0);
    expect(asked).toEqual([1]);
  });

  it('a resumed run with nothing left but what its earlier run did asks nothing', async () => {
    const journal = journalAt('ask-none');
    await firstRun(journal);
    const asked: Array<number | undefined> = [];
    const r = await run(resumedQueue(journal, [], 0, asking(asked)));
    expect([r.code, r.stdout]).toEqual([0, '\tk0\tskipped\t\n']);
    expect(asked).toEqual([]);
  });

  it('a dry run asks nothing', async () => {
    const asked: Array<number | undefined> = [];
    expect((await run(testVerb(['ok'], { dryRun: true, ...asking(asked) }))).code).toBe(0);
    expect(asked).toEqual([]);
  });
});

describe("a source read again once its items settle (BulkVerb.items' settled)", () => {
  it('settled resolves once every item started has finished', async () => {
    const finished = new Set<string>();
    const seen: string[][] = [];
    let k0Done!: () => void;
    const k0 = new Promise<void>((resolve) => {
      k0Done = resolve;
    });
    const r = await run(
      testVerb([], {
        concurrency: 2,
        prepare: async () => undefined,
        items: async function* (_run, _journal, settled) {
          yield { key: 'k0', data: 'ok' };
          yield { key: 'k1', data: 'ok' };
          // Pulled once k0 is done (its worker's next item): k1 is still in flight then.
          await settled();
          seen.push([...finished].sort());
        },
        // k1 ends after k0, a turn of the event loop later: a source that did not wait for it reads
        // the queue with k1 unfinished.
        work: async (item: BulkItem<string>) => {
          if (item.key === 'k1') {
            await k0;
            await new Promise((resolve) => setImmediate(resolve));
          }
          finished.add(item.key);
          if (item.key === 'k0') k0Done();
          return {};
        },
      }),
    );
    expect([r.code, r.stdout, seen]).toEqual([0, '\tk0\tok\t\n\tk1\tok\t\n', [['k0', 'k1']]]);
  });

  it('a stop meanwhile cuts the source there: the run was interrupted, not done with every item', async () => {
    const controller = new AbortController();
    let readAfter = false;
    let k0Done!: () => void;
    const k0 = new Promise<void>((resolve) => {
      k0Done = resolve;
    });
    const r = await run(
      testVerb([], {
        concurrency: 2,
        prepare: async () => undefined,
        items: async function* (_run, _journal, settled) {
          yield { key: 'k0', data: 'ok' };
          yield { key: 'k1', data: 'ok' };
          // Waits for k1, during which Ctrl-C comes.
          await settled();
          // Had the queue been read again, it would be empty: all its items done, as far as it says.
          readAfter = true;
        },
        work: async (item: BulkItem<string>) => {
          if (item.key === 'k0') k0Done();
          else {
            await k0;
            await new Promise((resolve) => setImmediate(resolve));
            controller.abort();
          }
          return {};
        },
      }),
      { signal: controller.signal },
    );
    expect([r.code, r.stdout, readAfter]).toEqual([130, '\tk0\tok\t\n\tk1\tok\t\n', false]);
    expect(r.error).toMatchObject({ message: expect.stringMatching(/^interrupted after 2 items/) });
  });
});

describe('how unknown outcomes are shown and named', () => {
  /** What OutcomeUnknownError adds to the message of the connection error it wraps. */
  const SO_UNKNOWN = ', so the outcome is unknown: the platform may have made this change';
  /** Rows that show what the operation hands `present`: plan, status and outcome. */
  const present = (result: BulkResult & { plan?: string }, item: BulkItem<string>): Row => ({
    line: item.line,
    key: item.key,
    status: [result.plan ?? '-', result.status, result.outcome ?? '-'].join('/'),
    note: result.error?.message ?? '',
  });

  it("a run's unknown outcome is a failed row with outcome unknown; a dry run's unchecked row is failed, planned unknown", async () => {
    const lost = () =>
      new OutcomeUnknownError(new ConnectionError('cannot reach http://x: other side closed'));
    const real = await run(
      testVerb(['ok'], {
        present,
        work: async () => {
          throw lost();
        },
      }),
    );
    expect(real.stdout).toBe(
      `2\tk0\t-/failed/unknown\tcannot reach http://x: other side closed${SO_UNKNOWN}\n`,
    );
    const dry = await run(
      testVerb(['ok'], {
        present,
        dryRun: true,
        plan: async () => {
          throw new ApiError({ status: 503, code: 'unavailable', message: 'later' });
        },
      }),
    );
    expect(dry.stdout).toBe('2\tk0\tunknown/failed/-\tcould not be checked: later\n');
    // Named in the error as a check not made, not a row that would fail.
    expect([dry.code, (dry.error as Error).message]).toEqual([
      1,
      '1 of 1 item could not be checked: line 2: could not be checked: later',
    ]);
  });

  it('the error names the first three unknown outcomes and counts the rest', async () => {
    const r = await run(
      testVerb(['ok', 'ok', 'ok', 'ok'], {
        work: async (item) => {
          throw new OutcomeUnknownError(new ConnectionError(`${item.key} cut`));
        },
      }),
    );
    expect(r.code).toBe(7);
    expect((r.error as Error).message).toBe(
      `4 of 4 items ended with an unknown outcome (the platform may have made them; no answer svc could believe said whether it did): line 2: k0 cut${SO_UNKNOWN}; line 3: k1 cut${SO_UNKNOWN}; line 4: k2 cut${SO_UNKNOWN}; and 1 more`,
    );
  });
});

describe('answers the platform gave from its record of an earlier request', () => {
  /** k0 replayed after a lost answer, the others replayed at their first attempt. */
  const replays = (outcomes: string[]) =>
    testVerb(outcomes, {
      work: async (item, call) => call.replayed({ replayed: true, afterLostAnswer: item.data === 'lost' }),
    });
  const FIRST =
    'the platform answered as done before (Idempotent-Replayed) though svc lost no answer of them: their idempotency key was not new to it (another run with the same key, or the server marks answers so); the platform answered with what it did then';

  it('counts apart those replayed after a lost answer and those at the first attempt', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(join(dirs().SVC_STATE_DIR!, 'journals'), { recursive: true, force: true });
    const r = await run(replays(['lost', 'first', 'first']));
    expect([r.code, r.stderr]).toEqual([
      0,
      '1 of these was done by an earlier attempt whose answer was lost; the platform answered with what it did then\n' +
        `2 of these ${FIRST}\n✓ 3 touched (0.0 s)\n`,
    ]);
  });

  it('every one at its first attempt: no line about lost answers', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(join(dirs().SVC_STATE_DIR!, 'journals'), { recursive: true, force: true });
    const r = await run(replays(['first', 'first']));
    expect([r.code, r.stderr]).toEqual([0, `2 of these ${FIRST}\n✓ 2 touched (0.0 s)\n`]);
  });
});

describe('Ctrl-C while requests are on the wire', () => {
  /** A run of two items whose first has `sent` requests on the wire when Ctrl-C comes. */
  const interrupted = async (sent: number, options: VerbOptions = {}) => {
    const controller = new AbortController();
    return run(
      testVerb(['ok', 'ok'], {
        work: async (_item, call) => {
          const onTheWire = attemptsOnTheWire(call.signal)!;
          onTheWire.sent += sent;
          controller.abort();
          onTheWire.sent -= sent;
          return {};
        },
      }),
      { ...options, signal: controller.signal },
    );
  };

  it('says how many it waits for, and that a second Ctrl-C stops at once', async () => {
    const one = await interrupted(1);
    expect(one.code).toBe(130);
    expect(one.stderr.split('\n')[0]).toBe('stopping: 1 request in flight; interrupt again to stop now');
    const two = await interrupted(2);
    expect(two.stderr.split('\n')[0]).toBe('stopping: 2 requests in flight; interrupt again to stop now');
  });

  it('nothing on the wire, or --json: no such line', async () => {
    const none = await interrupted(0);
    expect(none.code).toBe(130);
    expect(none.stderr).not.toContain('stopping');
    const json = await interrupted(1, { globals: { json: true } });
    expect(json.code).toBe(130);
    expect(json.stderr).not.toContain('stopping');
  });
});

describe("a resumed run's first line", () => {
  /** Sets the kept journal's platform start (its first line's platform_started_at). */
  const platformStart = (journal: string, at: string) => {
    const [head, ...rest] = readFileSync(journal, 'utf8').split('\n');
    writeFileSync(
      journal,
      [JSON.stringify({ ...JSON.parse(head!), platform_started_at: at }), ...rest].join('\n'),
    );
  };

  it('without a count of what is left, says only what is done', async () => {
    const journal = journalAt('no-count');
    await firstRun(journal);
    const r = await run(resumedQueue(journal, ['k1'], undefined));
    expect(r.stderr.split('\n')[0]).toBe(
      `taking up the failures of the run started at ${START} (it finished at ${START}): 1 done (journal ${journal})`,
    );
  });

  it("gives the platform's clock from a minute apart, the machine's alone under it", async () => {
    const journal = journalAt('skew');
    await firstRun(journal);
    platformStart(journal, '2026-01-15T12:01:00Z');
    const minute = await run(resumedQueue(journal, ['k1'], 1, { dryRun: true }));
    expect(minute.stderr.split('\n')[0]).toBe(
      `a dry run of taking up the failures of the run started at 2026-01-15T12:01:00Z on the platform's clock (${START} on this machine's; it finished at ${START}): 1 done, 1 to do (journal ${journal})`,
    );
    platformStart(journal, '2026-01-15T12:00:59Z');
    const under = await run(resumedQueue(journal, ['k1'], 1, { dryRun: true }));
    expect(under.stderr.split('\n')[0]).toBe(
      `a dry run of taking up the failures of the run started at ${START} (it finished at ${START}): 1 done, 1 to do (journal ${journal})`,
    );
  });

  // attack26a F11: with --json the line was left out unless it had a note, so rows `skipped`,
  // reason `journal`, came with no word that this run resumed another. Said in every mode.
  it('with --json, a resumed run says so: as a warning when it has a note, else as under a pipe', async () => {
    const journal = journalAt('json-note');
    const again = (resumeNote?: () => string) =>
      testVerb(['ok', 'ok'], { journal, identity: ['file'], ...(resumeNote ? { resumeNote } : {}) });
    expect((await run(testVerb(['ok', 'fail'], { journal, identity: ['file'] }))).code).toBe(7);
    const noted = await run(
      again(() => 'its grants end sooner'),
      { globals: { json: true } },
    );
    expect(noted.stderr).toBe(
      `warning: taking up the failures of the run started at ${START} (it finished at ${START}): 1 done, 1 to do (journal ${journal}); its grants end sooner\n✓ 1 touched, 1 skipped (0.0 s)\n`,
    );
    expect((await run(testVerb(['ok', 'fail'], { journal, identity: ['file'] }))).code).toBe(7);
    const quiet = await run(again(), { globals: { json: true } });
    expect([quiet.code, quiet.stderr]).toEqual([
      0,
      `taking up the failures of the run started at ${START} (it finished at ${START}): 1 done, 1 to do (journal ${journal})\n✓ 1 touched, 1 skipped (0.0 s)\n`,
    ]);
  });

  it('a verb whose items are all in its source and not counted (a stream): what is done, no count left', async () => {
    const journal = journalAt('stream');
    expect((await run(testVerb(['ok', 'fail'], { journal, identity: ['stream'] }))).code).toBe(7);
    const r = await run(
      testVerb(['ok', 'ok'], { journal, identity: ['stream'], prepare: async () => undefined }),
    );
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      0,
      `taking up the failures of the run started at ${START} (it finished at ${START}): 1 done (journal ${journal})`,
    ]);
  });

  it('an item the earlier run finished and the source still holds is shown once, as a journal row', async () => {
    const journal = journalAt('still-there');
    await firstRun(journal);
    const r = await run(resumedQueue(journal, ['k0', 'k1'], 1));
    expect([r.code, r.stdout]).toEqual([0, '\tk0\tskipped\t\n\tk1\tok\t\n']);
  });
});

describe("a run's journal name", () => {
  it('hashes an empty server and tenant when none is set', async () => {
    const hash = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
    const before = new Set(journals());
    const r = await run(testVerb(['fail'], { identity: ['no-target'] }), {
      env: { SVC_BASE_URL: undefined, SVC_TENANT: undefined },
    });
    expect(r.code).toBe(7);
    const command = hash(['test-op', 2, '', '', 'no-target']);
    const caller = JSON.stringify(['default', 'none']);
    const name = `test-op-${hash(['test-op', 3, command, caller]).slice(0, 16)}.ndjson`;
    expect(journals().filter((j) => !before.has(j))).toEqual([name]);
  });
});

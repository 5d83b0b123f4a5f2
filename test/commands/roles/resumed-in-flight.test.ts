/**
 * Brief fixgrant4 item 2: a `roles assign --file` run cut with a row's grant on the wire (a kill,
 * or a stop before its answer) leaves no line of that row, and the resumed run that is told the
 * grant exists said `skipped already_assigned` ("nothing changed") of a grant the cut run made.
 * The journal now notes each grant row in flight before its request goes (`{"sent": KEY, ...}`),
 * and the resumed run judges the grant it finds as after a lost answer, from the cut run's start:
 * `ok`, `found_after_lost_answer`, its note naming that run; a journal an earlier svc wrote (no
 * marks) resumes as before. Here the cut is a stop pressed once the platform applied the grant,
 * its answer then dropped (the run sends nothing after a stop: the row's outcome is unknown, not
 * journaled), and the platform keeps no stored answers (the resumed attempt's 409 is a plain one).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;

/**
 * Aborted once the first grant has been applied by the sandbox (the proxy's `lose` hook runs after
 * it passed the request on), never before: the resumed run cannot reach the platform first
 * (review28a M2). The journal as it was when the grant reached the proxy is kept in `seenJournal`.
 */
let stop: AbortController | undefined;
/** The run being cut, from its grant's arrival until its answer is dropped. */
let cutting: AbortController | undefined;
let journalPath = '';
let seenJournal = '';
let grants = 0;
let fresh = 0;
afterEach(() => {
  stop = undefined;
  cutting = undefined;
  seenJournal = '';
  grants = 0;
  proxy().reset();
});
const proxy = useLossyProxy(sandbox, {
  before: (method, path) => {
    if (method !== 'POST' || !GRANT.test(path) || ++grants !== 1 || !stop) return;
    seenJournal = readFileSync(journalPath, 'utf8');
    cutting = stop;
  },
  // The cut run's grant is made (the sandbox answered it); then the stop, and its answer lost.
  lose: (method, path) => {
    if (method !== 'POST' || !GRANT.test(path) || !cutting) return false;
    cutting.abort();
    cutting = undefined;
    return 'drop';
  },
  // A platform that keeps no stored answers: each attempt a fresh key.
  body: (method, path, body) =>
    method === 'POST' && GRANT.test(path)
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
});

async function cutRun(name: string, user: string) {
  await customRole(sandbox(), name);
  const file = svc.file(`${name}.csv`, `user,role\n${user},${name}\n`);
  journalPath = join(svc.dir, `${name}.journal`);
  const argv = [
    ...['roles', 'assign', '--file', file, '--expires-in', 'never', '--justification', 'mine'],
    ...['--yes', '--ndjson', '--concurrency', '1', '--journal', journalPath],
  ];
  stop = new AbortController();
  const first = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url }, signal: stop.signal });
  stop = undefined;
  return { argv, first };
}

describe('roles assign --file resumed after a run cut with a grant in flight', () => {
  it('the journal marks the row sent before its request goes; the resumed run: ok, found_after_lost_answer', async () => {
    const { argv, first } = await cutRun('in-flight', bulkUser(1));
    expect(first.code, first.stderr).toBe(130);
    // The mark was on disk when the request reached the platform.
    const marks = seenJournal
      .split('\n')
      .filter((line) => line.includes('"sent"'))
      .map((line) => JSON.parse(line));
    expect(marks).toEqual([{ sent: '2', before: expect.stringMatching(/Z$/), on_server_clock: true }]);
    const again = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
    const row = JSON.parse(again.stdout.trim().split('\n')[0]!);
    // Was `skipped`, `already_assigned`: "nothing changed" of the grant the cut run made.
    expect([again.code, row.status, row.reason], again.stdout).toEqual([0, 'ok', 'found_after_lost_answer']);
    expect(row.note).toBe(
      'the answer to the grant was lost (the run this one resumes sent it and ended before its answer) and its retry found it made: most likely by that attempt',
    );
  });

  it('a journal an earlier svc wrote (no marks): resumed as before, skipped already_assigned', async () => {
    const { argv } = await cutRun('in-flight-old', bulkUser(2));
    const kept = readFileSync(journalPath, 'utf8');
    writeFileSync(
      journalPath,
      kept
        .split('\n')
        .filter((line) => !line.includes('"sent"'))
        .join('\n'),
    );
    const again = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
    const row = JSON.parse(again.stdout.trim().split('\n')[0]!);
    expect([again.code, row.status, row.reason], again.stdout).toEqual([0, 'skipped', 'already_assigned']);
  });
});

/**
 * Brief fixapply item 2: an `svc apply` run cut with a grant on the wire (a kill, or a stop before
 * its answer) leaves no line of that step, and the resumed run, planning again, found the grant
 * made and said `skipped already_done` of the grant the cut run made. Its journal now notes each
 * step in flight before it is sent (`{"sent": KEY, ...}`, as `roles assign --file` does), and the
 * resumed run sends that grant again and judges what it is told from the cut run's start: `ok`,
 * `found_after_lost_answer`, its note naming that run. A journal without marks (an earlier svc's)
 * resumes as before. The cut: a stop pressed when the grant reaches the platform, its answer then
 * dropped; the platform keeps no stored answers (the resumed attempt's 409 is a plain one).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-in-flight-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;

/** Aborted when the first grant reaches the proxy (the journal as it is then kept in `seen`). */
let stop: AbortController | undefined;
let state = '';
let seen = '';
let grants = 0;
let fresh = 0;
afterEach(() => {
  stop = undefined;
  seen = '';
  grants = 0;
});
const journalOf = () => {
  const names = readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'));
  return join(state, 'journals', names[0]!);
};
const proxy = useLossyProxy(svc.sandbox, {
  before: (method, path) => {
    if (method !== 'POST' || !GRANT.test(path) || ++grants !== 1 || !stop) return;
    seen = readFileSync(journalOf(), 'utf8');
    stop.abort();
  },
  // The cut run's grant is made and its answer lost; nothing is lost after it.
  lose: (method, path) => (method === 'POST' && GRANT.test(path) && grants === 1 && stop ? 'drop' : false),
  // A platform that keeps no stored answers: each attempt a fresh key.
  body: (method, path, body) =>
    method === 'POST' && GRANT.test(path)
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
});

async function cutRun(tag: string, who: string) {
  await as(svc.sandbox(), LABS, 'POST', '/v1/roles', { name: tag, permissions: ['exception.read'] });
  const file = writeFile(
    dir,
    `${tag}.yaml`,
    `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - { user: ${who}, role: ${tag}, justification: mine }\n`,
  );
  state = join(dir, `state-${tag}`);
  const argv = ['apply', '-f', file, '--yes', '--ndjson'];
  const env = { SVC_STATE_DIR: state, SVC_BASE_URL: proxy().url };
  stop = new AbortController();
  const first = await svc.run(argv, { ...real, env, signal: stop.signal });
  stop = undefined;
  return { first, again: () => svc.run(argv, { ...real, env }) };
}

describe('svc apply resumed after a run cut with a grant in flight', () => {
  it('the journal marks the step sent before its request goes; the resumed run: ok, found_after_lost_answer', async () => {
    const { first, again } = await cutRun('apply-in-flight', user(3));
    expect(first.code, first.stderr).toBe(130); // stopped by Ctrl-C, its grant an unknown outcome (cli-contract)
    // The mark was on disk when the request reached the platform.
    const marks = seen
      .split('\n')
      .filter((line) => line.includes('"sent"'))
      .map((line) => JSON.parse(line));
    expect(marks).toEqual([
      { sent: expect.stringContaining(user(3)), before: expect.stringMatching(/Z$/), on_server_clock: true },
    ]);
    const rest = await again();
    const row = ndjson(rest.stdout).find((r) => r.kind === 'grant');
    // Was `skipped`, `already_done`: "nothing changed" of the grant the cut run made.
    expect([rest.code, row.status, row.reason], rest.stdout + rest.stderr).toEqual([
      0,
      'ok',
      'found_after_lost_answer',
    ]);
    expect(row.note).toBe(
      'the answer to the grant was lost (the run this one resumes sent it and ended before its answer) and its retry found it made: most likely by that attempt',
    );
  });

  it('a journal without marks (an earlier svc): resumed as before, skipped already_done', async () => {
    const { first, again } = await cutRun('apply-in-flight-old', user(4));
    expect(first.code, first.stderr).toBe(130); // stopped by Ctrl-C, its grant an unknown outcome (cli-contract)
    const path = journalOf();
    const kept = readFileSync(path, 'utf8');
    writeFileSync(
      path,
      kept
        .split('\n')
        .filter((line) => !line.includes('"sent"'))
        .join('\n'),
    );
    const rest = await again();
    const row = ndjson(rest.stdout).find((r) => r.kind === 'grant');
    expect([rest.code, row.status, row.reason], rest.stdout + rest.stderr).toEqual([
      0,
      'skipped',
      'already_done',
    ]);
  });
});

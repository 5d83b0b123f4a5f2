/**
 * Brief fixgrant4 item 3: a run of grants (`roles assign --file`, `svc apply`) judges each grant's
 * 2xx against who the caller is (grantAnswerNotMade), which it read from GET /v1/me when the first
 * answer named a granter: a read that failed then (a 429 with a long Retry-After, a re-login)
 * made every grant the run made an unknown outcome. It is now read once at the run's start, before
 * any grant is sent; a read that fails there stops the run with nothing sent (one line, the read's
 * exit code), and a /v1/me refused later changes nothing.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 40 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-caller-at-start-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const viaProxy = (argv: string[], input?: string) =>
  svc.run(argv, {
    env: { SVC_BASE_URL: proxy().url },
    now: Date.now(),
    ...(input === undefined ? {} : { stdin: input }),
  });
const GRANT = /^POST \/v1\/users\/[^/]+\/roles$/;

/**
 * GET /v1/me refused 403: from the first grant on (`after: 'grant'`), or the `nth` read and those
 * after it (`svc apply` reads it once to plan); its other answers pass.
 */
const meRefused =
  (after: 'grant' | number) =>
  (answer: Reshaped): void => {
    if (answer.method !== 'GET' || answer.path !== '/v1/me') return;
    const { seen } = proxy();
    const refused =
      after === 'grant'
        ? seen.some((line) => GRANT.test(line))
        : seen.filter((line) => line === 'GET /v1/me').length >= after;
    if (refused) {
      answer.status = 403;
      answer.body = { error: { code: 'forbidden', message: 'refused by the test proxy' } };
    }
  };
const refusedAtStart = (nothing: string) => ({
  error: {
    code: 'forbidden',
    message: `svc could not read who you are (GET /v1/me: refused by the test proxy), which svc needs before it sends a grant, to tell a grant the platform answers with from someone else's; ${nothing}`,
    exit_code: 4,
    hint: 'run the same command again once `svc me` answers',
  },
});
/** Every grant's 2xx names the caller as its granter in a form only /v1/me gives (its e-mail). */
const byEmail = (answer: Reshaped): void => {
  if (GRANT.test(`${answer.method} ${answer.path}`) && answer.status < 300)
    Object.assign(answer.body as object, { assigned_by: 'ada@acme.example' });
};
const file = (argv: string[] = []) =>
  [
    ...['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'bulk'],
    ...['--yes', '--ndjson', ...argv],
  ] as string[];
const applyFile = (name: string, users: number[]) =>
  writeFile(
    dir,
    `${name}.yaml`,
    `version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - { users: [${users.map(bulkUser).join(', ')}], role: tenant_viewer, justification: apply }\n`,
  );

describe('roles assign --file: who the caller is, read at the start', () => {
  it('/v1/me refused once grants are sent: every row granted, exit 0 (was: every row unknown, exit 7)', async () => {
    proxy().set({
      reshape: (answer) => {
        byEmail(answer);
        return meRefused('grant')(answer);
      },
    });
    const r = await viaProxy(
      file(['--concurrency', '1']),
      `user,role\n${bulkUser(1)},tenant_viewer\n${bulkUser(2)},tenant_viewer\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.user, row.status])).toEqual([
      [bulkUser(1), 'ok'],
      [bulkUser(2), 'ok'],
    ]);
    // One read, before the first grant.
    const seen = proxy().seen.filter((line) => line === 'GET /v1/me' || GRANT.test(line));
    expect(seen.map((line) => (GRANT.test(line) ? 'grant' : line))).toEqual(['GET /v1/me', 'grant', 'grant']);
  });

  it('/v1/me refused at the start: nothing sent, one line, exit 4', async () => {
    proxy().set({ reshape: meRefused(1) });
    const r = await viaProxy(file(), `user,role\n${bulkUser(3)},tenant_viewer\n`);
    expect([r.code, r.stdout], r.stderr).toEqual([4, '']);
    expect(r.stderr).toBe(`${JSON.stringify(refusedAtStart('nothing was granted'))}\n`);
    expect(proxy().seen.filter((line) => GRANT.test(line))).toEqual([]);
  });
});

describe('svc apply: who the caller is, read at the start', () => {
  const apply = (name: string, users: number[]) =>
    viaProxy([
      'apply',
      '-f',
      applyFile(name, users),
      '--yes',
      '--ndjson',
      '--concurrency',
      '1',
      '--journal',
      join(dir, `${name}.j`),
    ]);

  it('/v1/me refused once grants are sent: applied, exit 0 (was: every grant unknown, exit 7)', async () => {
    proxy().set({
      reshape: (answer) => {
        byEmail(answer);
        return meRefused('grant')(answer);
      },
    });
    const r = await apply('me-later', [4, 5]);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.kind, row.status])).toEqual([
      ['grant', 'ok'],
      ['grant', 'ok'],
    ]);
  });

  it('/v1/me refused at the start: nothing applied, one line, exit 4', async () => {
    // The plan's own read of /v1/me answered; the read of who the caller is refused.
    proxy().set({ reshape: meRefused(2) });
    const r = await apply('me-first', [6]);
    expect([r.code, r.stdout], r.stderr).toEqual([4, '']);
    expect(r.stderr).toBe(`${JSON.stringify(refusedAtStart('nothing was applied'))}\n`);
    expect(proxy().seen.filter((line) => GRANT.test(line))).toEqual([]);
  });
});

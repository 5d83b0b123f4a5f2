import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

// A grant file's dry run with GET /v1/me unanswered (a 503 after the retries, a dropped connection)
// planned the caller's own row `grant` and exited 0; the real run refused it (self_assignment, exit 7)
// (exploratory test s12, contract12 #2). A dry run that cannot tell the caller's own rows, nor what
// the caller may hand out, cannot promise them: it stops as the revoke file's does (not_checked, exit 1).
const sandbox = useSandbox({ users: 6 });
const svc = bulkRunner(sandbox);
let lost: 'me' | 'mine' = 'me';
const noMe = useLossyProxy(sandbox, {
  lose: (method, path) => {
    if (method !== 'GET') return false;
    if (lost === 'me') return path.startsWith('/v1/me');
    // /v1/me answered, the caller's own assignments not: what they may hand out is unknown.
    return path.startsWith('/v1/users/usr_admin/roles');
  },
});

describe('svc roles assign --file --dry-run when the server does not say who you are', () => {
  it.each([
    ['GET /v1/me answers 503', 'me'],
    ['your own assignments are not answered', 'mine'],
  ] as const)('%s: no promise, exit 1 not_checked, nothing sent', async (_what, which) => {
    lost = which;
    const path = svc.file(
      `g-${which}.csv`,
      `user,role,expires_in,justification\nusr_admin,tenant_viewer,8h,t\n${bulkUser(5)},tenant_analyst,8h,t\n`,
    );
    const env = { SVC_BASE_URL: noMe().url, SVC_MAX_RETRIES: '0' };
    const dry = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--ndjson'], { env });
    expect([dry.code, dry.stdout]).toEqual([1, '']);
    const error = JSON.parse(dry.stderr).error;
    expect([error.code, error.exit_code]).toEqual(['not_checked', 1]);
    expect(error.message).toMatch(
      which === 'me'
        ? /^could not learn who you are \(GET \/v1\/me: [^\n]+\): the dry run cannot tell which rows grant to yourself or hand out a role you may not; nothing was changed; run the dry run again$/
        : /^could not learn what you hold \(GET \/v1\/users\/usr_admin\/roles: [^\n]+\): the dry run cannot tell which rows grant to yourself or hand out a role you may not; nothing was changed; run the dry run again$/,
    );
    // Answered, the same dry run refuses the caller's own row, as the real run does.
    const clean = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--ndjson']);
    expect([clean.code, ndjson(clean.stdout).map((r) => [r.line, r.plan, r.error?.code ?? null])]).toEqual([
      7,
      [
        [2, 'fail', 'self_assignment'],
        [3, 'grant', null],
      ],
    ]);
  });
});

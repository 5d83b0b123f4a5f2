import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, bulkUser, customRole, held } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// A parallel CI job's `svc login --with-token` with a freshly issued token of the same user, while
// a bulk run works on that profile: the same identity, so the run goes on with the token it holds
// (attack21 F9). Another user, or an API key where the user was, still stops it (exit 3).
const svc = useSandboxContext({ users: 40 });

/** Awaited before the run's nth grant POST reaches the sandbox: the other job's login. */
let onPost: ((count: number) => Promise<void>) | undefined;
let posts = 0;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method !== 'POST' || !path.startsWith('/v1/users/')) return;
    posts++;
    await onPost?.(posts);
  },
});

let n = 0;
/** A profile directory of its own, a fresh role and a grants file of `count` users of its own for it. */
async function setup(count: number) {
  const tag = `relogin-${++n}`;
  const users = Array.from({ length: count }, (_, i) => bulkUser(10 * n + i));
  const config = join(svc.env().SVC_CONFIG_DIR!, tag);
  mkdirSync(config, { recursive: true, mode: 0o700 });
  const roleId = await customRole(svc.sandbox(), tag);
  const path = join(config, 'grants.csv');
  writeFileSync(
    path,
    `user,role,expires_in,justification\n${users.map((u) => `${u},${tag},1h,t`).join('\n')}\n`,
  );
  const env = {
    SVC_CONFIG_DIR: config,
    SVC_TOKEN: '',
    SVC_BASE_URL: proxy().url,
    SVC_STATE_DIR: join(config, 'state'),
  };
  const login = async (token: string) => {
    const r = await svc.run(['login', '--with-token'], { env, stdin: token });
    expect(r.code, r.stderr).toBe(0);
  };
  const granted = async () => {
    const out: string[] = [];
    for (const user of users)
      if ((await held(svc.sandbox(), user)).some((a) => a.role_id === roleId)) out.push(user);
    return out;
  };
  return { users, env, path, login, granted };
}

const run = (path: string, env: Record<string, string>) =>
  svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1'], {
    env,
    clock: { now: () => Date.now() },
  });

describe('a bulk run while another job logs the same profile in again', () => {
  it.each([
    ['a fresh token of the same user', () => svc.sandbox().issueToken('usr_admin').token],
    [
      'a fresh token of the same user for fewer tenants (narrower: the run keeps its own)',
      () => svc.sandbox().issueToken('usr_admin', { tenantIds: [ACME] }).token,
    ],
  ])('%s: the run goes on with the token it holds, every row granted, exit 0', async (_, fresh) => {
    const { users, env, path, login, granted } = await setup(4);
    await login(svc.sandbox().issueToken('usr_admin').token);
    posts = 0;
    onPost = async (count) => {
      if (count === 2) await login(fresh());
    };
    const r = await run(path, env).finally(() => {
      onPost = undefined;
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((row) => row.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(await granted()).toEqual(users);
  });

  it.each([
    [
      'a token of another user',
      () => svc.sandbox().issueToken('usr_analyst').token,
      'belongs to usr_analyst',
    ],
  ])('%s: still stops the run, exit 3, credential_changed', async (_, other, what) => {
    const { users, env, path, login, granted } = await setup(3);
    await login(svc.sandbox().issueToken('usr_admin').token);
    posts = 0;
    onPost = async (count) => {
      if (count === 2) await login(other());
    };
    const r = await run(path, env).finally(() => {
      onPost = undefined;
    });
    expect(r.code).toBe(3);
    const rows = ndjson(r.stdout);
    expect(rows.map((row) => row.status)).toEqual(['ok', 'ok', 'failed']);
    expect(rows[2]?.error).toMatchObject({ code: 'credential_changed' });
    const { error } = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!);
    expect(error.message).toBe(
      `profile "default" now ${what} (logged in while this run was going); this run keeps the identity it started with`,
    );
    expect(await granted()).toEqual(users.slice(0, 2));
  });
});

/**
 * `roles update --name` answered 409 role_name_taken to the retry of an attempt whose answer was
 * lost (session 25's open list): the name may be the role's own, given by that attempt, where
 * "pick another --name" sent the user looking for another role. The role read back by its id
 * decides it (names are unique in a tenant): named as asked, updated, most likely by the lost
 * attempt (exit 0); named otherwise, the name is another role's (the refusal, exit 6). fixout3:
 * what cannot tell the lost attempt's rename from another's — the read failing, the role named as
 * asked but the rest not, or last updated before the attempt — is an unknown outcome
 * (outcome_unknown, exit 1, the hint naming `svc roles get ID`), never "pick another --name".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bulkRunner, customRole } from '../../helpers/bulk.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);
const ROLE = /^\/v1\/roles\/role_[0-9a-f]+$/;
const TENANT = '8ab23c1d-a27b-565a-ad8f-983ecf5fe016';
const LOST =
  "an earlier attempt's answer was lost (the connection dropped) and it may have acted; this answer may describe what it left:";

/** A platform that keeps no stored answers and counts the role's own name as taken: the retry of a PATCH is refused 409. */
const patches = new Map<string, number>();
let readFails = false;
/** Before the first PATCH of a role (or its retry): another admin's change of it, `agoMs` before on the sandbox clock. */
let theirs:
  | { body: Record<string, unknown>; agoMs: number; retry?: boolean; thenDelete?: boolean }
  | undefined;
/** Ctrl-C as svc reads the role back after the retry's 409, the read held until then (review28b M1). */
let cut: AbortController | undefined;
let releaseRead: (() => void) | undefined;
afterEach(() => {
  patches.clear();
  readFails = false;
  theirs = undefined;
  cut = undefined;
  releaseRead?.();
});
const proxy = useLossyProxy(sandbox, {
  before: async (method, path) => {
    if (method === 'GET' && ROLE.test(path) && patches.get(path) === 2 && cut) {
      cut.abort();
      cut = undefined;
      await new Promise<void>((resolve) => {
        releaseRead = resolve;
      });
      return;
    }
    if (method !== 'PATCH' || !ROLE.test(path) || !theirs || patches.has(path) !== Boolean(theirs.retry))
      return;
    const s = sandbox();
    s.state.clock.advance(-theirs.agoMs);
    try {
      const r = await call(s, 'PATCH', path, { token: s.adminToken, tenant: TENANT, body: theirs.body });
      if (r.status !== 200) throw new Error(`their change: ${r.status} ${r.text}`);
      if (theirs.thenDelete) {
        const d = await call(s, 'DELETE', path, { token: s.adminToken, tenant: TENANT });
        if (d.status !== 200) throw new Error(`their delete: ${d.status} ${d.text}`);
      }
    } finally {
      s.state.clock.advance(theirs.agoMs);
    }
  },
  lose: (method, path, seen) => (method === 'PATCH' && ROLE.test(path) && seen === 1 ? 'drop' : false),
  refuse: (method, path) => {
    if (!ROLE.test(path)) return undefined;
    if (method === 'GET')
      return readFails && patches.has(path) ? refusal(403, 'forbidden', 'not allowed') : undefined;
    if (method !== 'PATCH') return undefined;
    const n = (patches.get(path) ?? 0) + 1;
    patches.set(path, n);
    return n >= 2 ? refusal(409, 'role_name_taken', 'a role with that name already exists') : undefined;
  },
});
afterEach(() => proxy().reset());

describe('roles update --name answered 409 after a lost answer', () => {
  it('the role read back holds the name and all asked: updated by the lost attempt, exit 0', async () => {
    const id = await customRole(sandbox(), 'ren-a');
    const r = await svc.run(['roles', 'update', 'ren-a', '--name', 'ren-a2', '--description', 'd'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ updated role ren-a2 (${id}) in ${TENANT}: most likely by this command's attempt whose answer was lost (the connection dropped); its retry was told the name is taken, and the role, read back, is as asked\n`,
    ]);
    expect(r.stdout).toContain('name\tren-a2\n');
  });

  it('--json: the role, found_after_lost_answer', async () => {
    const id = await customRole(sandbox(), 'ren-j');
    const r = await svc.run(['roles', 'update', 'ren-j', '--name', 'ren-j2', '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, name: 'ren-j2', found_after_lost_answer: true });
  });

  it('another role holds the name: the refusal and its "pick another --name", exit 6', async () => {
    await customRole(sandbox(), 'ren-b-taken');
    await customRole(sandbox(), 'ren-b');
    const r = await svc.run(['roles', 'update', 'ren-b', '--name', 'ren-b-taken'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: ${LOST} a role with that name already exists (HTTP 409, role_name_taken); pick another --name, or change that role: svc roles update ren-b-taken\n`,
    ]);
  });

  it('the read back fails: an unknown outcome naming how to look, exit 1, never "pick another --name"', async () => {
    const id = await customRole(sandbox(), 'ren-c');
    readFails = true;
    const r = await svc.run(['roles', 'update', 'ren-c', '--name', 'ren-c2'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: the retry was told the name ren-c2 is taken, and the answer to the first attempt was lost (the connection dropped): the name may be this role's own, given by that attempt, and svc could not read the role back to tell (not allowed), so the outcome is unknown: the platform may have made this change; check the role's name before running the command again (\`svc roles get ${id}\` shows it)\n`,
    ]);
  });

  it('--json: the read back fails: outcome_unknown, exit 1', async () => {
    await customRole(sandbox(), 'ren-cj');
    readFails = true;
    const r = await svc.run(['roles', 'update', 'ren-cj', '--name', 'ren-cj2', '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, JSON.parse(r.stderr).error.code]).toEqual([1, '', 'outcome_unknown']);
  });

  it('renamed as asked by another admin 30 s before the attempt: unknown, exit 1, no ✓', async () => {
    const id = await customRole(sandbox(), 'ren-d');
    theirs = { body: { name: 'ren-d2' }, agoMs: 30_000 };
    const r = await svc.run(['roles', 'update', 'ren-d', '--name', 'ren-d2'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout], r.stderr).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the retry was told the name ren-d2 is taken, and the answer to the first attempt was lost \\(the connection dropped\\): role ${id} is named ren-d2 now, last updated \\S+Z, before the first attempt was sent: renamed by that attempt or by someone else, svc cannot tell, so the outcome is unknown: the platform may have made this change; check the role's name before running the command again \\(\`svc roles get ${id}\` shows it\\)\n$`,
      ),
    );
  });

  it('named as asked but the rest not (another admin changed it before the retry): unknown, exit 1', async () => {
    const id = await customRole(sandbox(), 'ren-e');
    theirs = { body: { description: 'theirs' }, agoMs: 0, retry: true };
    const r = await svc.run(['roles', 'update', 'ren-e', '--name', 'ren-e2', '--description', 'mine'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: the retry was told the name ren-e2 is taken, and the answer to the first attempt was lost (the connection dropped): role ${id} is named ren-e2 now, but the rest of the change is not as asked: renamed by that attempt or by someone else, svc cannot tell, so the outcome is unknown: the platform may have made this change; check the role's name before running the command again (\`svc roles get ${id}\` shows it)\n`,
    ]);
  });

  it('renamed otherwise and deleted since by another admin: the refusal is true, "pick another --name", exit 6', async () => {
    await customRole(sandbox(), 'ren-f');
    theirs = { body: { name: 'ren-f-theirs' }, agoMs: 0, retry: true, thenDelete: true };
    const r = await svc.run(['roles', 'update', 'ren-f', '--name', 'ren-f2'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: ${LOST} a role with that name already exists (HTTP 409, role_name_taken); pick another --name, or change that role: svc roles update ren-f2\n`,
    ]);
  });

  it('Ctrl-C while the role is read back after the 409: interrupted (exit 130), the outcome unknown', async () => {
    const id = await customRole(sandbox(), 'ren-g');
    cut = new AbortController();
    const r = await svc.run(['roles', 'update', 'ren-g', '--name', 'ren-g2'], {
      env: { SVC_BASE_URL: proxy().url },
      signal: cut.signal,
    });
    expect([r.code, r.stdout], r.stderr).toEqual([130, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the retry was told the name ren-g2 is taken, and the answer to the first attempt was lost \\(the connection dropped\\): the name may be this role's own, given by that attempt, and svc could not read the role back to tell \\(interrupted[^\n]*\\), so the outcome is unknown: the platform may have made this change; check the role's name before running the command again \\(\`svc roles get ${id}\` shows it\\)\n$`,
      ),
    );
  });
});

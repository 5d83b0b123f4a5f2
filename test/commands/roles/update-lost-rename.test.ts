/**
 * `roles update --name` answered 409 role_name_taken to the retry of an attempt whose answer was
 * lost (session 25's open list): the name may be the role's own, given by that attempt, where
 * "pick another --name" sent the user looking for another role. The role read back by its id
 * decides it (names are unique in a tenant): named as asked, updated, most likely by the lost
 * attempt (exit 0); named otherwise, the name is another role's (the refusal, exit 6); the read
 * failing, the refusal says the name may be its own and how to look.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bulkRunner, customRole } from '../../helpers/bulk.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);
const ROLE = /^\/v1\/roles\/role_[0-9a-f]+$/;
const TENANT = '8ab23c1d-a27b-565a-ad8f-983ecf5fe016';
const LOST =
  "an earlier attempt's answer was lost (the connection dropped) and it may have acted; this answer may describe what it left:";

/** A platform that keeps no stored answers and counts the role's own name as taken: the retry of a PATCH is refused 409. */
const patches = new Map<string, number>();
let readFails = false;
afterEach(() => {
  patches.clear();
  readFails = false;
});
const proxy = useLossyProxy(sandbox, {
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

  it('the read back fails: the refusal says the name may be the role’s own, and how to look', async () => {
    const id = await customRole(sandbox(), 'ren-c');
    readFails = true;
    const r = await svc.run(['roles', 'update', 'ren-c', '--name', 'ren-c2'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: ${LOST} a role with that name already exists (HTTP 409, role_name_taken); the name may be this role's own, given by the attempt whose answer was lost, and svc could not read the role back to tell: see \`svc roles get ${id}\`; if another role has it, pick another --name\n`,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { timeless } from '../helpers/webhooks.js';

// review20 F1: a resumed `roles assign --file` row answered from the platform's record printed the
// stored answer's expiry after another admin had changed it: "ok … until 01:08" and "✓ 1 granted
// or extended" while the user held it until 23:28, with --extend too. Now the row shows the expiry
// held now; under --extend another expiry than the row's is changed since (the same command
// extends it anew). review20 F5: a run whose only failures are changed since ends with "run the
// same command again", as its rows say, not "fix the file".
const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
/** While true, every grant's answer is lost (503 after the sandbox made it, every retry too). */
let losing = false;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => losing && method === 'POST' && /\/v1\/users\/[^/]+\/roles$/.test(path),
});
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });
const expiryHeld = async (user: number, roleId: string) =>
  (await held(sandbox(), bulkUser(user))).find((a) => a.role_id === roleId)?.expires_at;
/** Another admin's change of the grant's expiry, straight to the sandbox. */
const extendElsewhere = async (user: number, role: string) => {
  const r = await svc.run([
    'roles',
    'assign',
    bulkUser(user),
    role,
    '--expires-in',
    '20m',
    '--justification',
    'other',
    '--extend',
    '--yes',
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
};
/** A grants file of one row (8h) whose first run's answer is lost, then its expiry changed elsewhere. */
const lostThenChanged = async (name: string, user: number, argv: (path: string) => string[]) => {
  const id = await customRole(sandbox(), name);
  const path = svc.file(
    `${name}.csv`,
    `user,role,expires_in,justification\n${bulkUser(user)},${name},8h,t\n`,
  );
  losing = true;
  const first = await svc.run(argv(path), via()).finally(() => {
    losing = false;
  });
  expect(ndjson(first.stdout).map((r) => [r.status, r.outcome])).toEqual([['failed', 'unknown']]);
  const granted = await expiryHeld(user, id);
  await extendElsewhere(user, name);
  const now = await expiryHeld(user, id);
  expect(now).not.toBe(granted);
  return { id, granted, now, argv: argv(path) };
};

describe('a resumed grant answered from the record reports the expiry held now', () => {
  it('roles assign --file: the row shows the expiry held now and says it changed since', async () => {
    const { id, granted, now, argv } = await lostThenChanged('expiry-now', 1, (path) => [
      'roles',
      'assign',
      '--file',
      path,
      '--ndjson',
    ]);
    const again = await svc.run(argv, via());
    const [row] = ndjson(again.stdout);
    expect([row.status, row.replayed, row.expires_at, row.reason, row.granted_expires_at]).toEqual([
      'ok',
      true,
      now,
      'expiry_changed_since',
      granted,
    ]);
    expect(row.note).toBe(
      `granted until ${granted}, and its expiry was changed since: held until ${now} now`,
    );
    expect(again.code).toBe(0);
    expect(await expiryHeld(1, id)).toBe(now);
  });

  it('roles assign --file --extend: another expiry held now is changed since, exit 7, with the same command as the hint; it extends it anew', async () => {
    const { id, granted, now, argv } = await lostThenChanged('expiry-extend', 2, (path) => [
      'roles',
      'assign',
      '--file',
      path,
      '--extend',
      '--yes',
      '--ndjson',
    ]);
    const again = await svc.run(argv, via());
    const [row] = ndjson(again.stdout);
    expect([row.status, row.error?.code]).toEqual(['failed', 'changed_since']);
    expect(row.error.message).toMatch(
      new RegExp(
        `^granted by the earlier run this one resumes at \\S+Z \\(the platform answered with its record of it\\), but its expiry was changed since: ${bulkUser(2)} holds expiry-extend until ${now}, not until \\S+Z$`,
      ),
    );
    expect(row.error.hint).toBe(
      'if it should end as the file says, run the same command again: it extends it anew (a new request)',
    );
    expect(again.code).toBe(7);
    expect(again.stderr).not.toContain('✓');
    // review20 F5: nothing in the file is wrong, so the run's hint is the rows' own.
    const error = JSON.parse(timeless(again.stderr).trim().split('\n').at(-1) ?? '').error;
    expect(error.hint).toMatch(
      /^if the 1 changed since should still be as asked \(another admin may have changed them on purpose\), run the same command again with the same profile, logged in as the same user or with the same API key, to make them anew \(a new request each\) \(journal \S+\)$/,
    );
    expect(error.hint).not.toContain('fix the file');

    // The same command: a new key, which finds it held and moves its expiry to the row's.
    const third = await svc.run(argv, via());
    const [moved] = ndjson(third.stdout);
    expect([moved.status, moved.reason, moved.previous_expires_at]).toEqual(['ok', 'expiry_updated', now]);
    expect(third.code).toBe(0);
    expect(await expiryHeld(2, id)).toBe(granted);
  });
});

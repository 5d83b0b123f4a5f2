import { join } from 'node:path';
import { expect } from 'vitest';
import type { Role } from '../../src/api/schemas/roles.js';
import type { JournalDisk } from '../../src/bulk/journal-disk.js';
import type { Clock } from '../../src/context.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { realSleep } from '../../src/system/clock.js';
import type { Prompter } from '../../src/system/prompter.js';
import { runInProcess } from './context.js';
import { call } from './sandbox.js';
import { useTempFiles } from './temp.js';

export const ACME = tenantId('acme-treasury');

/** A role as the platform lists it (a built-in, unless `extra` says otherwise), for row rules in unit tests. */
export const roleOf = (id: string, extra: Partial<Role> = {}): Role => ({
  id,
  name: id,
  description: '',
  kind: 'builtin',
  scope: 'tenant',
  permissions: [],
  tenant_id: null,
  created_at: '',
  updated_at: '',
  created_by: 'system',
  deleted_at: null,
  ...extra,
});

/** usr_bulk_000001 …: the users `useSandbox({ users: N })` adds. */
export const bulkUser = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;

/** `roles assign USER ROLE` for good, justified, then `more` flags: the single grant tests make. */
export const assignArgv = (user: string, role: string, ...more: string[]) => [
  'roles',
  'assign',
  user,
  role,
  '--expires-in',
  'never',
  '--justification',
  't',
  ...more,
];

/**
 * A clock's waits real but at most `capMs` (a follow's 250-ms polls of deliveries a sandbox with a
 * small timeScale makes in milliseconds): the worker is not held idle, and what is waited for still
 * happens on the sandbox's real time. Its `now` is the clock's.
 */
export function briefWaits(clock: Clock, capMs = 20): Clock {
  return { ...clock, now: () => clock.now(), sleep: (ms, signal) => realSleep(Math.min(ms, capMs), signal) };
}

/**
 * In-process runs of svc against a test sandbox as its admin in Acme Treasury, with private
 * config, state and cache directories (removed after the file), a fixed clock (`at`) and
 * buffers for stdout and stderr.
 */
export function bulkRunner(sandbox: () => Sandbox) {
  // Made before the file's tests, not when it is collected (test/helpers/temp.ts says why).
  const made = useTempFiles('svc-bulk-cmd-');
  const dir = made.dir;
  // Owner-only, as a user keeps a secret file: svc warns of one others can read (attack25b L4).
  const file = (name: string, content: string | Buffer): string => made.file(name, content, { mode: 0o600 });
  const env = (extra: Record<string, string> = {}) => ({
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_STATE_DIR: join(dir, 'state'),
    SVC_CACHE_DIR: join(dir, 'cache'),
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
    SVC_TENANT: ACME,
    // Exact output is asserted without svc's colours (they are tested on their own).
    NO_COLOR: '1',
    ...extra,
  });
  return {
    dir,
    env,
    journals: join(dir, 'state', 'journals'),
    /** Writes a file in the private directory; returns its path. */
    file,
    /**
     * A fresh custom role `name` granted to bulk users `users` (8h, "setup") by a grants file, which
     * a revoke run can take as it is: the role's name and id and the file's path.
     */
    async grantedByFile(name: string, users: number[]): Promise<{ name: string; id: string; path: string }> {
      const id = await customRole(sandbox(), name);
      const rows = users.map((n) => `${bulkUser(n)},${name},8h,setup`).join('\n');
      const path = file(`${name}.csv`, `user,role,expires_in,justification\n${rows}\n`);
      const r = await this.run(['roles', 'assign', '--file', path]);
      if (r.code !== 0) throw new Error(r.stderr);
      return { name, id, path };
    },
    run(
      argv: string[],
      options: {
        clock?: Clock;
        mode?: 'table' | 'plain';
        stdin?: string;
        signal?: AbortSignal;
        env?: Record<string, string>;
        prompter?: Prompter;
        /** Every write to stdout fails with this code (a full disk: `ENOSPC`). */
        stdoutFails?: string;
        /** With stdoutFails: this many writes get through first (a reader that leaves: `| head -1`). */
        stdoutFailsAfter?: number;
        /** With stdoutFails: hears of each failed write once svc has. */
        stdoutFailed?: () => void;
        /** stderr is a terminal: the progress bar is drawn. */
        progress?: boolean;
        /** How the journal is written (fillableJournalDisk() in ./disk.ts plays a full disk). */
        journalDisk?: JournalDisk;
      } = {},
    ) {
      const tty = options.mode === 'table';
      return runInProcess(argv, env(options.env), {
        // A terminal for stdout only, unless a test asks for the progress bar on stderr.
        tty: { stdout: tty, stdin: tty, stderr: options.progress === true },
        ...(options.stdoutFails ? { stdoutFails: options.stdoutFails } : {}),
        ...(options.stdoutFailsAfter === undefined ? {} : { stdoutFailsAfter: options.stdoutFailsAfter }),
        ...(options.stdoutFailed ? { stdoutFailed: options.stdoutFailed } : {}),
        columns: 160,
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        // The sandbox runs on real time unless a test fixes a clock of its own.
        clock: options.clock ?? { now: () => Date.now() },
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.prompter ? { prompter: options.prompter } : {}),
        ...(options.journalDisk ? { journalDisk: options.journalDisk } : {}),
      });
    },
  };
}

/** A fresh custom role, so the sandbox's counts of its assignments are one test's alone. */
export async function customRole(sandbox: Sandbox, name: string): Promise<string> {
  const r = await call(sandbox, 'POST', '/v1/roles', {
    token: sandbox.adminToken,
    tenant: ACME,
    body: { name, permissions: ['exception.read'], idempotency_key: `role-${name}-${Date.now()}` },
  });
  if (r.status !== 201) throw new Error(`create role: ${r.status} ${r.text}`);
  return r.body.id;
}

/** Every assignment of a role ever made in Acme Treasury, counted by the sandbox. */
export async function assignments(
  sandbox: Sandbox,
  roleId: string,
): Promise<{ total: number; active: number; users: number; duplicates: number }> {
  return (await call(sandbox, 'GET', `/_sandbox/assignments?tenant_id=${ACME}&role_id=${roleId}`)).body;
}

/** The active assignments of a user, as the platform lists them. */
export async function held(sandbox: Sandbox, user: string) {
  const r = await call(sandbox, 'GET', `/v1/users/${user}/roles`, {
    token: sandbox.adminToken,
    tenant: ACME,
  });
  return (
    r.body.items as Array<{
      role_id: string;
      status: string;
      expires_at: string | null;
      audit_trail_id: string;
    }>
  ).filter((a) => a.status === 'active');
}

/** POST requests the sandbox answered for a route pattern, by status. */
export async function posts(sandbox: Sandbox, route: string): Promise<number> {
  const stats = (await call(sandbox, 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => k.startsWith(`POST ${route} `))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** A clock fixed at the current second (API timestamps have second precision). */
export function fixedClock(): Clock & { ms: number } {
  const clock = { ms: Math.floor(Date.now() / 1000) * 1000, now: () => clock.ms };
  return clock;
}

/** A prompter that records each confirmation question and answers `yes` (any other prompt fails). */
export function confirming(yes: boolean): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const fail = async (): Promise<never> => {
    throw new Error('unexpected prompt');
  };
  const confirm = async (question: string) => {
    asked.push(question);
    return yes;
  };
  return { asked, input: fail, password: fail, select: fail, confirm };
}

/**
 * A resumed run's stderr after its first line, which must say it resumes ("resuming the run
 * started at …": every resumed bulk run says so first since session 22, attack22 F4; "taking up
 * the failures of the run …" when that run finished with failures, truth22 3).
 */
export function afterResuming(stderr: string): string {
  const [first, ...rest] = stderr.split('\n');
  expect(first).toMatch(
    /^(?:resuming|taking up the failures of) the run started at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b.*: \d+ done, \d+ to do \(journal /,
  );
  return rest.join('\n');
}

/**
 * The JSON error object of a failed run under --json or --ndjson: the last line of stderr (README,
 * Output), after the lines said for people (a bulk run's summary, a resumed run's first line).
 */
export function lastJson(stderr: string): any {
  return JSON.parse(stderr.trimEnd().split('\n').at(-1)!);
}

/**
 * A secret-creating command killed hard (SIGKILL: no handler runs) while its request is in
 * flight leaves its --secret-file empty (crash14 1). The next run names the empty file as an
 * earlier run's, what may have been made and how to find it, and the idempotency key to re-run
 * with; re-run with that key, the platform's stored answer fills the same file (as `svc apply`
 * fills the empty files of its --secret-dir), and no second key is made.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useHeldRequests } from '../helpers/lossy-proxy.js';
import { ACME, useLiveAdmin } from '../helpers/sandbox.js';
import { BIN, baseEnv } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';
import { until } from '../helpers/webhooks.js';

const live = useLiveAdmin();
const files = useTempDir('svc-secret-killed-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
/**
 * The creating POST of a run is held at a proxy until the test lets it go: the run is in flight for
 * as long as the test needs (never latency that is usually long enough: a loaded machine once
 * outlasted it). Its timeout outlasts any hold.
 */
const creations = useHeldRequests(live.sandbox, (method) => method === 'POST');
const viaProxy = () => ({
  ...live.env,
  SVC_BASE_URL: creations.url(),
  SVC_TIMEOUT: '600',
  SVC_STATE_DIR: join(live.dir, '..', 'state'),
});

const records = () => join(live.dir, '..', 'state', 'secret-files');

const recorded = (path: string) => {
  try {
    return typeof JSON.parse(readFileSync(path, 'utf8')).key === 'string';
  } catch {
    return false;
  }
};

/** Starts the built svc and SIGKILLs it once its secret file waits for the answer. */
async function killedWhileInFlight(args: string[]): Promise<void> {
  const held = creations.hold();
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(viaProxy()), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  // Its record written whole, not just made: a record file exists empty before its bytes are in (a
  // run killed in between leaves none to name, and the loaded CI run once killed it there).
  await until(
    () => existsSync(records()) && readdirSync(records()).some((name) => recorded(join(records(), name))),
  );
  await held.arrived;
  child.kill('SIGKILL');
  await exited;
  // The platform gets the request its client no longer waits for, and answers it (stores its answer).
  held.release();
  await held.passed;
}

describe('a --secret-file left empty by a killed run', () => {
  it('svc tenants api-keys create: named as such, with the key to re-run with; that re-run fills it', async () => {
    const file = join(files, 'k3.txt');
    const create = ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', 'k3-KILL'];
    await killedWhileInFlight([...create, '--secret-file', file]);
    expect(statSync(file).size).toBe(0);

    const again = await live.svc([...create, '--secret-file', file], { env: live.env });
    const key = /--idempotency-key (svc_[0-9a-f-]{36})/.exec(again.stderr)?.[1];
    expect(again).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: --secret-file ${file} is empty: an earlier svc run was stopped before its secret arrived, and a publishable API key of ${ACME} may have been made; ` +
        `to get its secret into ${file}, re-run with: the same command with --idempotency-key ${key} (the platform keeps the answer for 24 hours); ` +
        `or see it with: svc tenants api-keys ls ${ACME}, and if nobody holds its key, revoke it with: svc tenants api-keys revoke ${ACME} KEY_ID --yes, then remove ${file}\n`,
    });

    const filled = await live.svc([...create, '--secret-file', file, '--idempotency-key', key!, '--json'], {
      env: live.env,
    });
    expect(filled.code, filled.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^svc_pk_\S+$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(
      (await live.svc(['tenants', 'api-keys', 'ls', ACME, '--json'], { env: live.env })).stdout,
    );
    const named = (Array.isArray(keys) ? keys : keys.items).filter(
      (k: { name: string }) => k.name === 'k3-KILL',
    );
    expect(named).toHaveLength(1);
    expect(named[0].id).toBe(JSON.parse(filled.stdout).id);
    // Done with: nothing is recorded as in flight any more.
    expect(readdirSync(records())).toEqual([]);
  });

  it('an empty file svc did not leave: says what may have been made, and how to find it', async () => {
    const file = join(files, 'touched.secret');
    writeFileSync(file, '');
    const r = await live.svc(['oauth', 'rotate-secret', 'cli_nope', '--yes', '--secret-file', file], {
      env: live.env,
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: --secret-file ${file} is empty: if an earlier svc run was stopped before its secret arrived, a new secret of OAuth client cli_nope (its old secret stopped working then) may have been made; ` +
        `see whether it was rotated then with: svc oauth get cli_nope; then remove ${file}, or choose a new path\n`,
    });
  });
});

// review16e E8: a second create aimed at the file another run is still filling was told that
// run "was stopped", and to re-run with that run's key (a different body) or delete its client.
describe('a --secret-file another run is still filling', () => {
  it('svc oauth create: says another svc run (its pid) may still be writing it; that run then finishes', async () => {
    const file = join(files, 'busy.secret');
    const create = (name: string) => [
      ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--secret-file', file],
    ];
    // Its POST held until the second run has checked the file.
    const held = creations.hold();
    const child = spawn(process.execPath, [BIN, ...create('busy-1')], {
      env: baseEnv(viaProxy()),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Its record written whole, not just made: a record file exists empty before its bytes are in (a
    // run killed in between leaves none to name, and the loaded CI run once killed it there).
    await until(
      () => existsSync(records()) && readdirSync(records()).some((name) => recorded(join(records(), name))),
    );
    await held.arrived;
    const second = await live.svc(create('busy-2'), {
      env: { ...live.env, SVC_STATE_DIR: join(live.dir, '..', 'state') },
    });
    held.release();
    expect(await exited).toBe(0);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `^error: --secret-file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is empty: another svc run \\(pid ${child.pid}\\) may still be waiting for its secret to write it there \\(an OAuth client named "busy-1" may be being made\\); choose another path for this command; `,
      ),
    );
    expect(second.stderr).not.toContain('was stopped before');
    expect(readFileSync(file, 'utf8')).toMatch(/\S{8}/);
  });
});

/**
 * review17 F6: the re-run svc itself prints (the same command, the same --idempotency-key, the
 * same --secret-file) started while the first run still waits for its answer took that run's
 * empty file over, and when it then failed (Ctrl-C) removed it: the first run said its secret "is
 * in" a file that no longer existed. A file is taken over only when its recorded writer is gone,
 * and a run removes only a file it made itself.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { endedPid } from '../helpers/ended-pid.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-secret-same-key-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

/** Webhook POSTs held until `release()`; the one after `cut.at` posts also aborts `cut.controller`. */
let posts = 0;
let release = () => {};
let held = new Promise<void>((r) => {
  release = r;
});
const cut = { at: Number.POSITIVE_INFINITY, controller: new AbortController() };
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method !== 'POST' || path !== '/v1/webhooks') return;
    posts++;
    if (posts >= cut.at) cut.controller.abort();
    await held;
  },
});

const create = (file: string, key: string) => [
  ...['webhooks', 'create', '--url', 'https://example.com/same-key', '--event-type', 'exception.created'],
  ...['--idempotency-key', key, '--secret-file', file],
];
const made = 'a webhook to https://example.com/same-key';

it('a re-run with the same key while the first run waits: refused, the file left to the first run, which fills it', async () => {
  const file = join(files, 'hook.secret');
  const argv = create(file, `same-live-${Date.now()}`);
  const env = { SVC_BASE_URL: proxy().url };
  cut.at = 2;
  const first = svc.run(argv, { env });
  while (posts === 0) await new Promise((r) => setTimeout(r, 20));

  const again = await svc.run(argv, { env, signal: cut.controller.signal });
  const existedAfterAgain = existsSync(file);
  release();
  const done = await first;

  expect(again.code, again.stderr).toBe(2);
  expect(again.stderr).toBe(
    `error: --secret-file ${file} is empty: another svc run (pid ${process.pid}) may still be waiting for its secret to write it there (${made} may be being made); ` +
      `wait for it to end: it writes the secret to ${file}; if pid ${process.pid} is no svc run, run the same command with another --secret-file path (the same --idempotency-key gets the same secret)\n`,
  );
  expect(posts).toBe(1);
  expect(existedAfterAgain).toBe(true);
  expect(done.code, done.stderr).toBe(0);
  expect(done.stderr).toMatch(
    new RegExp(
      `^✓ created webhook wh_\\w+ in [\\w-]+; its signing secret is in ${file} \\(mode 0600\\), not shown again\\n`,
    ),
  );
  expect(readFileSync(file, 'utf8')).toMatch(/^whsec_\S+$/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

it("a re-run that took over a stopped run's empty file and is cut: the file stays, and the next re-run fills it", async () => {
  posts = 0;
  held = Promise.resolve();
  cut.at = 1;
  cut.controller = new AbortController();
  const file = join(files, 'stopped.secret');
  const key = `same-stopped-${Date.now()}`;
  // What a run killed while in flight leaves: the empty file, and its record naming a pid now gone.
  writeFileSync(file, '', { mode: 0o600 });
  const gone = endedPid();
  const records = join(svc.env().SVC_STATE_DIR!, 'secret-files');
  mkdirSync(records, { recursive: true });
  const name = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 32);
  writeFileSync(
    join(records, `${name}.json`),
    `${JSON.stringify({ path: resolve(file), key, made, find: 'see it with: svc webhooks ls', rerun: `the same command with --idempotency-key ${key}`, pid: gone })}\n`,
  );
  const env = { SVC_BASE_URL: proxy().url };

  const cutRun = await svc.run(create(file, key), { env, signal: cut.controller.signal });
  expect(cutRun.code, cutRun.stderr).toBe(130);
  expect(existsSync(file)).toBe(true);
  expect(statSync(file).size).toBe(0);

  cut.at = Number.POSITIVE_INFINITY;
  const filled = await svc.run(create(file, key), { env });
  expect(filled.code, filled.stderr).toBe(0);
  expect(readFileSync(file, 'utf8')).toMatch(/^whsec_\S+$/);
});

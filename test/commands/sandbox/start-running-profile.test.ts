/**
 * `svc sandbox start` while the sandbox its profile points at still runs (attack25a F5): "port in
 * use; pass --port 0" was followed, and the second sandbox took profile "sandbox" over without a
 * word — the running one's login dropped, its banner's `svc tenants ls` now aimed at the new one
 * (and, once that stopped, at nothing). A profile whose local server still answers is replaced
 * only with --yes or a yes at a prompt (and said); the port-in-use hint names -p NAME.
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs('svc-sandbox-running-');

const config = (env: Record<string, string>) =>
  readFileSync(join(env.SVC_CONFIG_DIR!, 'config.json'), 'utf8');

/** Starts a sandbox, waits for its banner; gives the run and its URL. */
async function started(argv: string[], env: Record<string, string>) {
  const run = startInProcess(['sandbox', 'start', ...argv], env);
  const deadline = Date.now() + 15_000;
  while (!/Ctrl-C stops the sandbox/.test(run.stdout())) {
    if (run.ended() || Date.now() > deadline) throw new Error(`not started:\n${run.stdout()}${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const url = /svc sandbox listening on (http:\/\/\S+)/.exec(run.stdout())![1]!;
  return { run, url };
}

describe('svc sandbox start while the profile’s sandbox runs', () => {
  it('--port 0: refused (exit 2), the profile kept; -p NAME starts one beside it; --yes replaces it, said', async () => {
    const env = dirs();
    const a = await started(['--port', '0'], env);
    try {
      const before = config(env);
      const second = await runInProcess(['sandbox', 'start', '--port', '0'], env);
      expect([second.code, second.stdout, second.stderr]).toEqual([
        2,
        '',
        `error: profile "sandbox" points at ${a.url}, where a server still answers (a sandbox started earlier?); ` +
          'keep it: start this one under another profile, `svc -p NAME sandbox start …`; ' +
          'or pass --yes to point it at this one (its login there is dropped, not revoked)\n',
      ]);
      expect(config(env)).toBe(before);

      const beside = await started(['-p', 'second', '--port', '0'], env);
      beside.run.interrupt();
      expect((await beside.run.done).code).toBe(0);
      expect(JSON.parse(config(env)).profiles.sandbox.base_url).toBe(a.url);

      const taken = await started(['--port', '0', '--yes'], env);
      taken.run.interrupt();
      const r = await taken.run.done;
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `warning: profile "sandbox" pointed at ${a.url}, which still answers; its login there was dropped, not revoked: it points at this sandbox now\n`,
      );
      expect(JSON.parse(config(env)).profiles.sandbox.base_url).toBe(taken.url);
    } finally {
      a.run.interrupt();
      await a.run.done;
    }
  }, 60_000);

  it('its port again: the port-in-use hint names another profile', async () => {
    const env = dirs();
    const a = await started(['--port', '0'], env);
    try {
      const port = new URL(a.url).port;
      const r = await runInProcess(['sandbox', 'start', '--port', port], env);
      expect([r.code, r.stderr]).toEqual([
        2,
        `error: port ${port} on 127.0.0.1 is already in use; profile "sandbox" points at it (a sandbox running?): ` +
          'stop that one, or start another on a free port under another profile: `svc -p NAME sandbox start --port 0`\n',
      ]);
    } finally {
      a.run.interrupt();
      await a.run.done;
    }
  }, 60_000);

  // review25d L3: the look was skipped for the port alone; a bind on another address of that port
  // succeeds, and the profile was taken over without a word while the first sandbox answered.
  const ipv6 = Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === '::1'));
  it.skipIf(!ipv6)(
    'its port on another address (--host ::1): refused (exit 2), the profile kept',
    async () => {
      const env = dirs();
      const a = await started(['--port', '0'], env);
      try {
        const before = config(env);
        const port = new URL(a.url).port;
        const b = startInProcess(['sandbox', 'start', '--host', '::1', '--port', port], env);
        // Refused, it ends at once; started (the old rule), it is stopped, and the output says so.
        const deadline = Date.now() + 15_000;
        while (!b.ended() && !/Ctrl-C stops the sandbox/.test(b.stdout()) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 5));
        if (!b.ended()) b.interrupt();
        const r = await b.done;
        expect([r.code, r.stdout, r.stderr]).toEqual([
          2,
          '',
          `error: profile "sandbox" points at ${a.url}, where a server still answers (a sandbox started earlier?); ` +
            'keep it: start this one under another profile, `svc -p NAME sandbox start …`; ' +
            'or pass --yes to point it at this one (its login there is dropped, not revoked)\n',
        ]);
        expect(config(env)).toBe(before);
      } finally {
        a.run.interrupt();
        await a.run.done;
      }
    },
    60_000,
  );

  it('a profile whose sandbox has stopped is pointed at the new one, as before', async () => {
    const env = dirs();
    const a = await started(['--port', '0'], env);
    a.run.interrupt();
    expect((await a.run.done).code).toBe(0);
    const b = await started(['--port', '0'], env);
    b.run.interrupt();
    const r = await b.run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('warning: profile');
    expect(JSON.parse(config(env)).profiles.sandbox.base_url).toBe(b.url);
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs('svc-sandbox-start-');

async function tryLine(argv: string[], env: Record<string, string>): Promise<string> {
  return (await started(argv, env)).tryLine;
}

/** The Try line and what went to stderr, of a sandbox started and stopped (Ctrl-C). */
async function started(argv: string[], env: Record<string, string>) {
  const run = startInProcess(['sandbox', 'start', '--port', '0', ...argv], env);
  const deadline = Date.now() + 15_000;
  while (!/^Try .*$/m.test(run.stdout())) {
    if (run.ended() || Date.now() > deadline) throw new Error(`no Try line:\n${run.stdout()}${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  run.interrupt();
  expect((await run.done).code).toBe(0);
  return { tryLine: /^Try .*$/m.exec(run.stdout())![0], stdout: run.stdout(), stderr: run.stderr() };
}

describe('svc sandbox start: the Try line', () => {
  it('says `svc tenants ls` when it activated its profile', async () => {
    expect(await tryLine([], dirs())).toBe(
      'Try `svc tenants ls` in another terminal. Ctrl-C stops the sandbox (its data lives in memory).',
    );
  });

  it('says `svc -p sandbox tenants ls` when another profile stays active', async () => {
    const env = dirs();
    expect((await runInProcess(['config', 'set', 'base_url', 'https://api.example.com'], env)).code).toBe(0);
    expect(await tryLine([], env)).toBe(
      'Try `svc -p sandbox tenants ls` in another terminal. Ctrl-C stops the sandbox (its data lives in memory).',
    );
  });

  it('keeps the -p NAME it was given', async () => {
    const env = dirs();
    expect((await runInProcess(['config', 'set', 'base_url', 'https://api.example.com'], env)).code).toBe(0);
    expect(await tryLine(['-p', 'local'], env)).toMatch(/^Try `svc -p local tenants ls` in another terminal/);
  });

  // examples16 E8: "(active)" and `svc tenants ls`, while SVC_PROFILE=prod in the shell made that
  // command use "prod" (exit 5, no such profile). Said as `svc profiles use` says it.
  it('says `svc -p sandbox tenants ls`, and why, when SVC_PROFILE names another profile', async () => {
    const run = await started([], { ...dirs(), SVC_PROFILE: 'prod' });
    expect(run.tryLine).toBe(
      'Try `svc -p sandbox tenants ls` in another terminal. Ctrl-C stops the sandbox (its data lives in memory).',
    );
    expect(run.stdout).toMatch(/^ {2}profile {6}"sandbox" \(active\)$/m);
    expect(run.stderr.split('\n')).toContain(
      'warning: SVC_PROFILE=prod is set and overrides the active profile in this shell: commands here still use "prod" until you unset it',
    );
  });

  it('says `svc tenants ls`, with no warning, when SVC_PROFILE names its own profile', async () => {
    const run = await started([], { ...dirs(), SVC_PROFILE: 'sandbox' });
    expect(run.tryLine).toMatch(/^Try `svc tenants ls` in another terminal/);
    expect(run.stderr).not.toMatch(/SVC_PROFILE/);
  });
});

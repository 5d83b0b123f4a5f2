import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs('svc-sandbox-start-');

async function tryLine(argv: string[], env: Record<string, string>): Promise<string> {
  const run = startInProcess(['sandbox', 'start', '--port', '0', ...argv], env);
  const deadline = Date.now() + 15_000;
  while (!/^Try .*$/m.test(run.stdout())) {
    if (run.ended() || Date.now() > deadline) throw new Error(`no Try line:\n${run.stdout()}${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  run.interrupt();
  expect((await run.done).code).toBe(0);
  return /^Try .*$/m.exec(run.stdout())![0];
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
});

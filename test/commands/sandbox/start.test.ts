/**
 * `svc sandbox start`'s closing "Try" line names a command that works: the sandbox's profile is
 * activated only when no other profile is set up, and when it is not, the line says `-p sandbox`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../../helpers/context.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'svc-sandbox-start-'));
  made.push(root);
  return {
    SVC_CONFIG_DIR: join(root, 'config'),
    SVC_STATE_DIR: join(root, 'state'),
    SVC_CACHE_DIR: join(root, 'cache'),
    NO_COLOR: '1',
  };
}

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

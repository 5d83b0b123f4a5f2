/**
 * Ctrl-C while `svc apply -f -` or `svc plan -f -` reads the access document from a pipe that has
 * not ended (a slow producer, a paste): session 20 made only the bulk files' read abortable, and
 * these waited for standard input's end. Spawned: a real SIGINT to a process is the point.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnSvc } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv } from '../helpers/svc.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });

/**
 * svc with `args`, fed far more than a pipe holds (64 KiB on Linux) of a document that never
 * ends: once the write has been taken whole, svc is reading standard input (its signal handler is
 * set before any command runs). Then SIGINT; the exit code and what svc wrote.
 */
async function interruptedWhileReading(args: string[]) {
  const live = spawnSvc(args, env, null);
  onTestFinished(() => {
    if (live.child.exitCode === null && live.child.signalCode === null) live.child.kill('SIGKILL');
  });
  const comment = `# ${'x'.repeat(1021)}\n`;
  await new Promise<void>((resolve, reject) =>
    live.child.stdin.write(`tenants:\n${comment.repeat(1024)}`, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  live.child.kill('SIGINT');
  return live.done;
}

/** How many requests other than GETs the sandbox has answered, by its own counts. */
async function sent(): Promise<number> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => !key.startsWith('GET '))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('Ctrl-C while the access document is read from standard input', () => {
  it.each([
    ['apply -f -', ['apply', '-f', '-', '--yes']],
    ['plan -f -', ['plan', '-f', '-']],
  ])('%s ends at once: exit 130, one line, nothing sent', async (_name, args) => {
    const before = await sent();
    const r = await interruptedWhileReading(args);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      130,
      '',
      'error: interrupted while reading standard input; nothing was sent\n',
    ]);
    expect(await sent()).toBe(before);
  });
});

/**
 * Ctrl-C while a body or a secret is read from standard input that has not ended (a slow
 * producer, a paste): the read stops at once, exit 130, nothing sent. Session 20 made only the
 * bulk files' read stop; the access file's is tested spawned (test/ascode/stdin-interrupt.test.ts).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

/** How many requests other than GETs the sandbox has answered, by its own counts. */
async function sent(): Promise<number> {
  const stats = (await call(svc.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => !key.startsWith('GET '))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('Ctrl-C while standard input is read', () => {
  it.each([
    ['login --with-token', ['login', '--with-token']],
    ['api --input -', ['api', 'POST', '/v1/webhooks', '--input', '-']],
    ['webhooks sign --payload -', ['webhooks', 'sign', '--payload', '-']],
    [
      'webhooks verify --header-file -',
      ['webhooks', 'verify', '--header-file', '-', '--payload', 'package.json'],
    ],
  ])('%s ends at once: exit 130, one line, nothing sent', async (_name, argv) => {
    const stdin = new PassThrough();
    stdin.write('{"part":');
    const stop = new AbortController();
    const before = await sent();
    const env = { SVC_WEBHOOK_SECRET: 'whsec_0123456789abcdef0123456789abcdef' };
    const running = svc.run(argv, { stdin, signal: stop.signal, env });
    setTimeout(() => stop.abort(), 200);
    const r = await running;
    expect([r.code, r.stdout, r.stderr]).toEqual([
      130,
      '',
      'error: interrupted while reading standard input; nothing was sent\n',
    ]);
    expect(await sent()).toBe(before);
  });
});

/**
 * review19b F8: `tenants api-keys revoke` started its DELETE, then asked GET /v1/me for the
 * tenant's label before handing the DELETE to the words that read its outcome: a DELETE that was
 * refused (404) or "done unread" (a 204 with no body) while /v1/me was still on its way was an
 * unhandled rejection, and Node killed svc with its bundle and a stack (exit 1). An identity
 * endpoint slower than a DELETE: every outcome is said as the verb says it, none is left unheard.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { ACME, newApiKey, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext({ users: 2 });
const pause = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A DELETE on its way (`sent`) and answered (`answered`): GET /v1/me waits for both, when they come. */
let sent = signal();
let answered = signal();
let noBody = false;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method === 'DELETE') sent.resolve();
    if (method !== 'GET' || !path.startsWith('/v1/me')) return;
    // A DELETE sent alongside (the old order) is answered, and its answer read, before /v1/me's;
    // a DELETE sent only after /v1/me answered (the label first) is not waited for.
    if (await Promise.race([sent.promise.then(() => true), pause(300).then(() => false)])) {
      await answered.promise;
      await pause(150);
    }
  },
  reshape: (method, _path, status) => {
    if (method !== 'DELETE') return undefined;
    answered.resolve();
    return noBody && status < 300 ? { status: 204 } : undefined;
  },
});

const rejections: unknown[] = [];
const heard = (reason: unknown) => rejections.push(reason);
beforeEach(() => {
  sent = signal();
  answered = signal();
  noBody = false;
  rejections.length = 0;
  process.on('unhandledRejection', heard);
});
afterEach(() => {
  process.off('unhandledRejection', heard);
});

const newKey = async (name: string) => (await newApiKey(svc.sandbox(), name)).id;

const revoke = (key: string, ...more: string[]) =>
  svc.run(['tenants', 'api-keys', 'revoke', ACME, key, '--yes', ...more], {
    env: { SVC_BASE_URL: proxy().url },
  });

describe('tenants api-keys revoke, GET /v1/me slower than the DELETE (F8)', () => {
  it('a key the platform does not know (404): the one-line error, exit 5, no unhandled rejection', async () => {
    const r = await revoke('key_000000000000000000000000');
    expect(rejections).toEqual([]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^error: API key key_0{24} not found/);
    expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [
      [],
      /^✓ API key (key_\w+) of Acme Treasury \(acme-treasury\) is gone: the server answered HTTP 204 without a body, which says it was revoked\n$/,
    ],
    [['--json'], /"outcome":\s*"answered_without_body"/],
  ])('a 204 with no body (%j): ✓, exit 0, no unhandled rejection', async (flags, said) => {
    noBody = true;
    const key = await newKey(`slow-${flags.length}`);
    const r = await revoke(key, ...flags);
    expect(rejections).toEqual([]);
    expect(r.code, r.stderr).toBe(0);
    expect(flags.length ? r.stdout : r.stderr).toMatch(said);
  });
});

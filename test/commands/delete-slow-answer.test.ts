/**
 * A DELETE's mark against a Date stamped when the request *arrived* (Apache httpd's
 * `r->request_time`, review21 F2): a handler that takes 7 s marks the deletion 7 s after its Date.
 * svc knows how long the request took (its own clock, from sending to the answer): a mark no later
 * than Date plus that, plus the leeway, is the deletion made (✓). A mark further ahead stays an
 * unknown outcome (review20d D4), in words that name a flag saying it is gone and do not state
 * "not made yet" as fact. The proxy answers each DELETE itself; a request "takes" `took` ms on
 * svc's clock (moved on while the proxy answers), never by waiting.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../helpers/bulk.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
/** How far svc's clock is moved on while a DELETE is answered (the handler's time). */
let took = 0;
let moved = 0;
const clock = { now: () => Date.now() + moved };
/** The mark the proxy answers with, `ms` after the request's arrival (whole seconds, as DATETIME(0)). */
let markAfter = 0;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    if (method !== 'DELETE') return undefined;
    // Date is the request's arrival (Node stamps it now); the handler runs `took` ms on svc's clock.
    moved += took;
    const mark = new Date(Date.now() + markAfter).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { status: 200, body: { id: path.split('/').at(-1), soft_delete: true, deleted_at: mark } };
  },
});
const run = (argv: string[]) => svc.run(argv, { clock, env: { SVC_BASE_URL: proxy().url } });
async function record(name: string): Promise<string> {
  const made = await admin(sandbox(), 'POST', '/v1/accounts', { name });
  expect(made.status, made.text).toBe(201);
  return made.body.id as string;
}

describe('review21 F2: a mark after a Date stamped at the request arrival', () => {
  it('a handler of 7 s, its mark 7 s after the Date: the deletion made, ✓', async () => {
    const id = await record('f2 slow');
    took = 7_000;
    markAfter = 7_000;
    const r = await run(['records', 'delete', 'accounts', id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('✓');
    expect(r.stderr).not.toContain('scheduled');
  });

  it('an answer at once, its mark 7 s after the Date beside soft_delete: unknown, naming the flag, never "does not say it is gone"', async () => {
    const id = await record('f2 quick');
    took = 0;
    markAfter = 7_000;
    const r = await run(['records', 'delete', 'accounts', id, '--yes']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to DELETE /v1/accounts/${id} leaves it unclear whether it is gone \\(it says "deleted_at": "[^"]+" beside "soft_delete": true, [678] s after the answer itself: it reads as a deletion scheduled to take effect then, not one made\\)`,
      ),
    );
    expect(r.stderr).not.toContain('does not say it is gone');
    expect(r.stderr).not.toContain('not made yet');
  });

  it('review20d D4 holds: a mark 90 s ahead after a handler of 7 s is still unknown', async () => {
    const id = await record('f2 d4');
    took = 7_000;
    markAfter = 90_000;
    const r = await run(['records', 'delete', 'accounts', id, '--yes']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain('it reads as a deletion scheduled to take effect then');
    expect(r.stderr).not.toContain('✓');
  });
});

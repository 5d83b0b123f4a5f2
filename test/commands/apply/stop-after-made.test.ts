import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { timeless } from '../../helpers/webhooks.js';

// review22a F3, its left part: a stop lets a row's request on the wire finish but sends nothing
// after it (truth22 6). A row whose change the platform answered (2xx) and whose next request
// the stop left unsent is made, or may be: never a plain `failed` ("1 failed"), as a row that
// made nothing is. Here `svc apply` resumes a run whose webhook creation's answer was lost: the
// creation is answered from the platform's record, and the read of the webhook as it is now
// (creations.ts `current`) is not sent.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-apply-stop-made-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

/** The first creation's answer is lost (503 after the sandbox made it); `stop` is pressed while a creation is on the wire. */
let loseCreation = false;
let stop: AbortController | undefined;
const sent: string[] = [];
const proxy = useLossyProxy(svc.sandbox, {
  lose: (method, path) => loseCreation && method === 'POST' && path === '/v1/webhooks',
  before: (method, path) => {
    sent.push(`${method} ${path}`);
    if (stop && method === 'POST' && path === '/v1/webhooks') stop.abort();
  },
});

describe('svc apply stopped after a row’s change was answered, before its next request', () => {
  it('the creation answered from the record, its read not sent: outcome unknown, never a plain failure; exit 130', async () => {
    const url = 'https://hooks.example.com/stop-made';
    const file = writeFile(
      dir,
      'stop-made.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - url: ${url}\n        event_types: [exception.sla.breached]\n`,
    );
    const env = { SVC_STATE_DIR: join(dir, 'state'), SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    const argv = ['apply', '-f', file, '--secret-dir', join(dir, 'secrets'), '--yes', '--ndjson'];
    loseCreation = true;
    const first = await svc.run(argv, { ...real, env });
    loseCreation = false;
    expect(first.code, first.stderr).toBe(7);
    expect(ndjson(first.stdout).map((row) => [row.status, row.outcome])).toEqual([['failed', 'unknown']]);

    stop = new AbortController();
    sent.length = 0;
    const r = await svc.run(argv, { ...real, env, signal: stop.signal });
    stop = undefined;
    expect(r.code, r.stderr).toBe(130);
    // The creation went out (answered from the record); nothing after it did.
    expect(sent.at(-1)).toBe('POST /v1/webhooks');
    const hooks = (await as(svc.sandbox(), LABS, 'GET', '/v1/webhooks')).items.filter(
      (h: { url: string }) => h.url === url,
    );
    expect(hooks).toHaveLength(1);
    const [row] = ndjson(r.stdout);
    expect([row.status, row.outcome, row.error.code]).toEqual(['failed', 'unknown', 'interrupted']);
    expect(row.error.message).toBe(
      `the platform answered its change (HTTP 2xx), but the run stopped before its next request: interrupted before it was sent: GET /v1/webhooks/${hooks[0].id} was not sent`,
    );
    const lines = timeless(r.stderr).trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(/^0 applied, 1 with an unknown outcome \(T\)$/);
  });
});

/**
 * The tour's answer to a signal, in process: the running step (here a bulk grant, which writes its
 * journal into the tour's directory as it goes and as it stops) is interrupted and awaited before
 * the directory is removed, so no late write brings the directory, with the credentials, back.
 * (tour.test.ts signals the real process; this shows the order without depending on timing.)
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Tour } from '../../src/tour/runner.js';
import { ACME, bulkUser } from '../helpers/bulk.js';
import { until } from '../helpers/webhooks.js';

const ROWS = 3000;

describe('the tour interrupted while a step writes into its directory', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, users: ROWS });
  });
  afterAll(() => sandbox.close());

  it('interrupts the step, waits for it, then removes the directory for good; no step starts after', async () => {
    let shown = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        shown += chunk;
        done();
      },
    });
    const tour = new Tour(sandbox, out);
    const root = dirname(tour.configDir);
    await tour.svc(['config', 'set', 'base_url', sandbox.url]);
    await tour.svc(['login', '--with-token'], { input: sandbox.adminToken });
    const file = join(root, 'grants.csv');
    const rows = Array.from({ length: ROWS }, (_, i) => `${bulkUser(i + 1)},tenant_viewer,1h,rota\n`);
    writeFileSync(file, `user,role,expires_in,justification\n${rows.join('')}`);
    const step = tour.svc(['roles', 'assign', '--file', file, '--tenant', ACME]);
    const outcome = step.then(
      () => 'finished',
      (error: Error) => error.message,
    );
    const journals = join(root, 'state', 'journals');
    await until(() => existsSync(journals) && readdirSync(journals).length > 0);

    expect(await tour.interrupted()).toBeUndefined();
    expect(existsSync(root)).toBe(false);
    // The step had stopped (Ctrl-C's exit) before the removal, and nothing it does later writes.
    expect(await outcome).toMatch(/exited 130, expected 0$/);
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(root)).toBe(false);

    const before = shown;
    await expect(tour.svc(['tenants', 'ls'])).rejects.toThrow('tour interrupted');
    expect(shown).toBe(before);
  }, 60_000);
});

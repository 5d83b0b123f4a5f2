import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderError } from '../../src/output/errors.js';
import { interruptHandler } from '../../src/system/interrupts.js';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

// A second Ctrl-C (SIGTERM, SIGHUP) during a bulk run exits 130 at once, as the binary's handler
// does (src/system/interrupts.ts, installed by src/cli.ts main): first one line saying that it
// stopped, how far, and how to resume — never in silence (review s14 crash14 #5).
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);

/** The binary's signal handler, its exit and stderr played; `press` is one signal. */
function binary(json: boolean) {
  const controller = new AbortController();
  const said: string[] = [];
  const exits: number[] = [];
  const press = interruptHandler({
    abort: () => controller.abort(),
    exit: (code) => exits.push(code),
    write: (text) => said.push(text),
    render: (error) => renderError(error, { json, debug: false }),
  });
  return { signal: controller.signal, press, said, exits };
}

/** Ctrl-C pressed twice while the first `method` request about `user`'s roles is on its way. */
let pressTwice: { method: string; user: string; press: () => void } | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (!pressTwice || method !== pressTwice.method || !path.startsWith(`/v1/users/${pressTwice.user}/roles`))
      return;
    const { press } = pressTwice;
    pressTwice = undefined;
    press();
    press();
  },
});

async function grantsFile(name: string, count: number): Promise<string> {
  await customRole(sandbox(), name);
  const rows = Array.from({ length: count }, (_, i) => `${bulkUser(i + 1)},${name},never,second ctrl-c\n`);
  return svc.file(`${name}.csv`, `user,role,expires_in,justification\n${rows.join('')}`);
}

describe('a second Ctrl-C during a bulk run', () => {
  it.each([
    ['human', [] as string[]],
    ['ndjson', ['--ndjson']],
  ])('says where it stopped and how to resume before exiting 130 at once (%s)', async (mode, flags) => {
    rmSync(svc.journals, { recursive: true, force: true });
    const path = await grantsFile(`twice-${mode}`, 10);
    const signals = binary(mode !== 'human');
    pressTwice = { method: 'POST', user: bulkUser(3), press: signals.press };
    const run = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', ...flags], {
      signal: signals.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    // The in-process run goes on past the played exit: it is interrupted by the first signal.
    expect(run.code).toBe(130);
    const [journal] = readdirSync(svc.journals).filter((f) => f.endsWith('.ndjson'));
    const message =
      'interrupted again, so svc stopped at once after 2 of 10; 1 more was in flight: the platform may have made it';
    const hint = `run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${join(svc.journals, journal!)}): it sends that one again with the same idempotency keys`;
    expect(signals.exits).toEqual([130]);
    expect(signals.said.join('')).toBe(
      mode === 'human'
        ? `error: ${message}; ${hint}\n`
        : `${JSON.stringify({ error: { code: 'interrupted', message, exit_code: 130, hint } })}\n`,
    );
  });

  it('a dry run says that nothing was changed', async () => {
    const path = await grantsFile('twice-dry', 10);
    const signals = binary(false);
    pressTwice = { method: 'GET', user: bulkUser(3), press: signals.press };
    const run = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--dry-run'], {
      signal: signals.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(run.code).toBe(130);
    expect(signals.exits).toEqual([130]);
    expect(signals.said.join('')).toBe(
      'error: interrupted again, so svc stopped at once after 2 of 10; nothing was changed\n',
    );
  });
});

/**
 * Without a terminal svc never asks: a missing argument is a usage error (exit 2) naming what to
 * pass. The scripted prompter of the test fails on any question, so a prompt would fail the test.
 * The prompts themselves, on a real terminal: test/e2e/prompts.test.ts (tmux).
 */
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const TREASURY = tenantId('acme-treasury');

describe('never prompts without a terminal', () => {
  it.each([
    [
      ['webhooks', 'deliveries', '--tenant', TREASURY],
      // The line repeats the --tenant given (printed-target-hints.test.ts).
      `error: missing WEBHOOK; see \`svc --tenant ${TREASURY} webhooks ls\`\n`,
    ],
    [
      ['tenants', 'api-keys', 'create'],
      "error: missing TENANT; pass it, or set the profile's tenant (--tenant, SVC_TENANT, `svc config set tenant`); see `svc tenants ls`\n",
    ],
  ])('%j exits 2 naming what is missing, and sends nothing', async (argv, stderr) => {
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(argv, { env: { SVC_TENANT: undefined } })).toEqual({ code: 2, stdout: '', stderr });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});

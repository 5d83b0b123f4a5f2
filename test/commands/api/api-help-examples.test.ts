/**
 * The examples of `svc api --help` (and so docs/cli.md) that send a body work as printed: each is
 * run by bash with `svc` the built binary, against a sandbox, in a tenant of its own (both make a
 * role named ops). docs12 3: the stdin example left out `permissions`, which the API requires.
 */
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { bash } from '../../helpers/svc.js';

const svc = useSandboxContext();

/** The example lines of `svc api --help` (after `$ `) that post to /v1/roles. */
async function bodyExamples(): Promise<string[]> {
  const help = await svc.run(['api', '--help']);
  expect(help.code).toBe(0);
  return help.stdout
    .split('\n')
    .map((line) => /^\s*\$ (.*)$/.exec(line)?.[1])
    .filter((line): line is string => line?.includes('POST /v1/roles') === true);
}

describe('svc api --help examples', () => {
  it('every example posting a role works as printed (exit 0, the role made)', async () => {
    const examples = await bodyExamples();
    expect(examples.length).toBe(2);
    const tenants = ['acme-treasury', 'acme-labs'];
    for (const [i, example] of examples.entries()) {
      const env = { ...svc.env(), SVC_TENANT: tenantId(tenants[i]!) };
      const result = await bash(example, { env });
      expect(result.stderr, example).toBe('');
      expect(result.code, example).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ name: 'ops' });
    }
  });
});

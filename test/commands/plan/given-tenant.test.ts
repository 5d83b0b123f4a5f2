import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { as, LABS, losingAnswersOnConfirm, writeFile, writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan / svc apply act in the tenants the file's tenants: key names (exploratory test s14
// isolation, F1): `svc --tenant acme-labs apply -f all.yaml --yes` took the flag without a word
// and changed the five tenants `tenants: all` named. A tenant given by --tenant bounds the run:
// beyond it, refused (exit 2) before anything is compared or changed. SVC_TENANT is --tenant's
// variable and bounds the same way (session 15: a CI job scoped by it changed every tenant); the
// profile's tenant is a default for one-tenant verbs, not a bound.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-given-tenant-');
const real = { clock: { now: () => Date.now() } };
const file = (name: string, tenants: string) =>
  writeFile(
    dir,
    name,
    `version: 1\nblocks:\n  - tenants: ${tenants}\n    roles:\n      - { name: gt-${name.split('.')[0]}, description: probe, permissions: [exception.read] }\n`,
  );
const FIVE = 'acme-treasury, acme-payments-eu, acme-ledger-uk, acme-apac, acme-labs';
const refusal = (what: string) =>
  `error: --tenant acme-labs bounds this run to one tenant, but ${what} 5 tenants (${FIVE}): svc plan and svc apply act in the tenants the file's tenants: key names; nothing was compared or changed; name only acme-labs in the file's tenants: key, or leave out --tenant to act in all of them\n`;

describe('a tenant given to svc plan / svc apply', () => {
  it('is a bound: a file reaching beyond it is refused (exit 2, nothing changed), a saved plan too', async () => {
    const all = file('all.yaml', 'all');
    const before = await writes(svc.sandbox());
    const flag = real;
    for (const verb of [['plan'], ['apply', '--yes']]) {
      expect(await svc.run(['--tenant', 'acme-labs', verb[0]!, '-f', all, ...verb.slice(1)], flag)).toEqual({
        code: 2,
        stdout: '',
        stderr: refusal(`${all}'s tenants: key names`),
      });
    }
    // A saved plan: the tenants it was planned for.
    const saved = join(dir, 'all.plan.json');
    expect((await svc.run(['plan', '-f', all, '--out', saved], flag)).code).toBe(10);
    expect(await svc.run(['apply', saved, '--yes', '--tenant', 'acme-labs'], flag)).toEqual({
      code: 2,
      stdout: '',
      stderr: refusal(`${saved} was planned for`),
    });
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('refuses a run interrupted without it and run again with it (another operation: the run key holds the tenant)', async () => {
    const sandbox = svc.sandbox();
    const two = file('two.yaml', '[acme-labs, acme-apac]');
    const flag = real;
    const first = await svc.run(['apply', '-f', two], {
      ...flag,
      tty: true,
      prompter: losingAnswersOnConfirm(sandbox),
      env: { SVC_MAX_RETRIES: '0' },
    });
    sandbox.faults.update({ drop_rate: 0 });
    expect(first.code, first.stderr).toBe(7);
    const before = await writes(sandbox);
    const again = await svc.run(['--tenant', 'acme-labs', 'apply', '-f', two, '--yes'], flag);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      2,
      '',
      `error: --tenant acme-labs bounds this run to one tenant, but ${two}'s tenants: key names 2 tenants (acme-labs, acme-apac): svc plan and svc apply act in the tenants the file's tenants: key names; nothing was compared or changed; name only acme-labs in the file's tenants: key, or leave out --tenant to act in all of them\n`,
    ]);
    expect(await writes(sandbox)).toBe(before);
  });

  it("SVC_TENANT bounds it the same way, named as the variable; a profile's tenant does not", async () => {
    const all = file('env.yaml', 'all');
    const before = await writes(svc.sandbox());
    for (const verb of [['plan'], ['apply', '--yes']]) {
      expect(
        await svc.run([verb[0]!, '-f', all, ...verb.slice(1)], { ...real, env: { SVC_TENANT: 'acme-labs' } }),
      ).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: SVC_TENANT=acme-labs bounds this run to one tenant, but ${all}'s tenants: key names 5 tenants (${FIVE}): svc plan and svc apply act in the tenants the file's tenants: key names; nothing was compared or changed; name only acme-labs in the file's tenants: key, or run it with SVC_TENANT unset (\`SVC_TENANT= svc …\`) to act in all of them\n`,
      });
    }
    expect(await writes(svc.sandbox())).toBe(before);
    // A profile whose tenant is acme-labs: a default, so the file's five tenants are planned.
    const profile = { ...real, env: { SVC_PROFILE: 'ci' } };
    expect((await svc.run(['config', 'set', 'tenant', 'acme-labs'], profile)).code).toBe(0);
    const planned = await svc.run(['plan', '-f', all, '--ndjson'], profile);
    expect(planned.code, planned.stderr).toBe(10);
    expect(
      new Set(
        planned.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).tenant),
      ).size,
    ).toBe(5);
  });

  it('is honoured when the file acts in it alone (by slug or id)', async () => {
    const labs = file('labs.yaml', 'acme-labs');
    const flag = real;
    const r = await svc.run(['--tenant', 'acme-labs', 'apply', '-f', labs, '--yes'], flag);
    expect([r.code, r.stdout.split('\t').slice(1, 5)], r.stderr).toEqual([
      0,
      ['acme-labs', 'role', 'create', 'gt-labs'],
    ]);
    const roles = await as(svc.sandbox(), LABS, 'GET', '/v1/roles?limit=200');
    expect(roles.items.map((x: { name: string }) => x.name)).toContain('gt-labs');
    const plan = await svc.run(['plan', '-f', labs, '--tenant', LABS.toUpperCase()], flag);
    expect([plan.code, plan.stdout]).toEqual([0, '']);
  });
});

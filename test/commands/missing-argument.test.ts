/**
 * An argument left out is said one way by every verb (attack26a F10): `missing NAME`, in upper case
 * as the help names it, pointing at the list of such things where one exists (filled in with the
 * arguments given before it and the run's -p/--tenant), else at the command's help; with --json the
 * pointer is the error's `hint`. Whether commander finds it (a required argument) or the verb does
 * (one it asks for on a terminal: WEBHOOK, TENANT, KEY-ID), the words are the same. Nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

describe('a missing argument', () => {
  it.each([
    // Asked for on a terminal (pick.ts) and required (commander): one style.
    [['webhooks', 'get'], 'missing WEBHOOK', 'see `svc webhooks ls`'],
    [['webhooks', 'deliveries', 'get'], 'missing WEBHOOK', 'see `svc webhooks ls`'],
    [['webhooks', 'deliveries', 'get', 'wh_1'], 'missing DELIVERY', 'see `svc webhooks deliveries ls wh_1`'],
    [['webhooks', 'dlq', 'get', 'wh 1'], 'missing ENTRY', "see `svc webhooks dlq ls 'wh 1'`"],
    [['oauth', 'get'], 'missing CLIENT-ID', 'see `svc oauth ls`'],
    [['roles', 'holders'], 'missing ROLE', 'see `svc roles ls`'],
    [['records', 'get'], 'missing SURFACE', 'see `svc records get --help`'],
    [['records', 'delete', 'reconciliations'], 'missing ID', 'see `svc records ls reconciliations`'],
    [['audit', 'get'], 'missing ID', 'see `svc audit ls`'],
    [['config', 'set'], 'missing KEY', 'see `svc config ls`'],
    [['config', 'set', 'tenant'], 'missing VALUE', 'see `svc config set --help`'],
    [['profiles', 'use'], 'missing NAME', 'see `svc profiles ls`'],
    [['tenants', 'api-keys', 'get'], 'missing KEY-ID', 'see `svc tenants api-keys ls`'],
    [
      ['tenants', 'api-keys', 'revoke', 'acme-treasury'],
      'missing KEY-ID',
      'see `svc tenants api-keys ls acme-treasury`',
    ],
    // Before --secret-file, which rotate-secret also needs (F10).
    [['webhooks', 'rotate-secret'], 'missing WEBHOOK', 'see `svc webhooks ls`'],
  ])('%j: exit 2, one line naming it and where to find one', async (argv, message, hint) => {
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(argv)).toEqual({ code: 2, stdout: '', stderr: `error: ${message}; ${hint}\n` });
    expect(await svc.run([...argv, '--json'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'usage', message, exit_code: 2, hint } })}\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('the list line repeats the -p and --tenant given, from commander and from a verb alike', async () => {
    const tenant = ['--tenant', 'acme-treasury'];
    const fromVerb = await svc.run([...tenant, 'webhooks', 'test']);
    const fromCommander = await svc.run([...tenant, 'webhooks', 'dlq', 'get', 'wh_1']);
    expect([fromVerb.code, fromVerb.stderr]).toEqual([
      2,
      'error: missing WEBHOOK; see `svc --tenant acme-treasury webhooks ls`\n',
    ]);
    expect([fromCommander.code, fromCommander.stderr]).toEqual([
      2,
      'error: missing ENTRY; see `svc --tenant acme-treasury webhooks dlq ls wh_1`\n',
    ]);
  });

  it.each([
    [['--tenant', 'acme-ledger-uk'], 'revoke', 'svc --tenant acme-ledger-uk tenants api-keys ls'],
    [['--tenant', 'acme-ledger-uk'], 'get', 'svc --tenant acme-ledger-uk tenants api-keys ls'],
    [['-p', 'prod'], 'get', 'svc -p prod tenants api-keys ls'],
    [['-p', 'prod'], 'revoke', 'svc -p prod tenants api-keys ls'],
  ])(
    '%j tenants api-keys %s: the KEY-ID hint keeps them (review27a F4: it listed another tenant)',
    async (target, verb, list) => {
      if (target[0] === '-p') {
        const made = await svc.run(['-p', 'prod', 'config', 'set', 'tenant', 'acme-labs']);
        expect(made.code, made.stderr).toBe(0);
      }
      const r = await svc.run([...target, 'tenants', 'api-keys', verb]);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: missing KEY-ID; see \`${list}\`\n`]);
    },
  );
});

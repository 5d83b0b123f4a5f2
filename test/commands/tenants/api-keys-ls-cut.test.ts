/**
 * `svc tenants api-keys ls` on an 80-column terminal with two keys whose names differ only at
 * their end (review22e M1): the names need their whole 29 columns, and the key PREFIX, how someone
 * holding a leaked key finds which key to revoke, was cut as plain text to `svc_p…` on both rows.
 * It is cut as ids are, to a prefix unique in its column; here it is never cut.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ACME, sandboxNow, setSandboxClock, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

let now: number;

beforeAll(async () => {
  now = await sandboxNow(svc.sandbox());
  const identity = svc.sandbox().state.identity;
  for (const [n, prefix] of [
    [2, 'svc_pk_7CP'],
    [3, 'svc_pk_7CQ'],
  ] as const) {
    const { record } = identity.createApiKey({
      tenant_id: ACME,
      kind: 'publishable',
      name: `settlement-exporter-eu-west-${n}`,
      created_by: 'sandbox',
    });
    // Fixed, so the table is exact: prefixes that differ only in their last character.
    Object.assign(record, {
      id: `key_${String(n).repeat(24)}`,
      prefix,
      created_at: new Date(now - 180_000).toISOString(),
    });
  }
});

describe('tenants api-keys ls: the key prefix on a narrow terminal (review22e M1)', () => {
  it('keeps each prefix whole at 80 columns, beside names that need their whole width', async () => {
    setSandboxClock(svc.sandbox(), now);
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury'], { tty: true, columns: 80, now });
    expect(r.code, r.stderr).toBe(0);
    // Cut as plain text, as before session 22's fix, both prefixes read `svc_p…`.
    expect(r.stdout).toBe(
      'ID           KIND    NAME                           PREFIX       CREATED        REVOKED  STATUS\n' +
        'key_333333…  publi…  settlement-exporter-eu-west-3  svc_pk_7CQ…  3 minutes ago  -        active\n' +
        'key_222222…  publi…  settlement-exporter-eu-west-2  svc_pk_7CP…  3 minutes ago  -        active\n',
    );
    // The names are whole: the note does not send the reader to a pipe for more of them, only
    // for the kind, cut (review24a L1: every column shown cut).
    expect(r.stderr).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(the table is wider than the terminal: the names in NAME would read alike cut shorter; a pipe or --json shows KIND whole)\n',
    );
  });
});

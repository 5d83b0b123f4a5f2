import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user } from '../../helpers/ascode.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// Review 16f F1: a caller who may delete a record but not read it is refused a deleted id with the
// one refusal of any change. After a lost answer, a retry so refused (a platform that ignores
// Idempotency-Key on DELETE) ended exit 4 "ask a tenant_admin for exception.read" for a record this
// command most likely deleted; an answer lost for good told them to check what they cannot check.
const svc = useSandboxContext({ users: 3 });
const keyless = useLossyProxy(svc.sandbox, { ignoreDeleteKeys: true });
const lossy = useLossyProxy(svc.sandbox, { lose: (method) => method === 'DELETE' });
// review17 F2: a gateway that answers 503 to every DELETE without passing it on: nothing is deleted.
const gateway = useLossyProxy(svc.sandbox, {
  refuse: (method) => (method === 'DELETE' ? refusal(503, 'service_unavailable', 'gateway') : undefined),
});
let writer: Record<string, string>;

beforeAll(async () => {
  const role = await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
    name: 'write-only',
    permissions: ['exception.write'],
  });
  await as(svc.sandbox(), LABS, 'POST', `/v1/users/${user(2)}/roles`, { role_id: role.id });
  writer = { SVC_TOKEN: svc.sandbox().issueToken(user(2)).token, SVC_TENANT: LABS };
});

const made = async () =>
  (await as(svc.sandbox(), LABS, 'POST', '/v1/exceptions', { kind: 'duplicate', status: 'open' })) as {
    id: string;
    tenant_id: string;
  };
const isDeleted = (r: { id: string; tenant_id: string }) =>
  svc.sandbox().state.records.get(r.tenant_id, 'exceptions', r.id)!.soft_delete;
// review17 F2: the re-run is the check (it deletes the record if the lost attempt did not), not
// "refused in the same words whether or not the record was deleted".
const HINT = (id: string) =>
  `you cannot read exceptions (exception.read), so svc cannot look for you; running the same command again tells: it deletes the record if the lost attempt did not (✓), and if that attempt did, it is refused as a missing or deleted record is (exit 4, "needs one that exists and is not deleted"), which for you means it is most likely deleted; someone who holds exception.read can check with \`svc records get exceptions ${id}\``;
// review17 F3: a delete's blind refusal speaks of a delete, not of patches and members sent, and
// names no permission the delete takes (the caller holds exception.write).
const DELETE_REFUSAL =
  'deleting an exception you cannot read needs one that exists and is not deleted (exception.read shows whether it does) in tenant acme-labs; ' +
  'your live roles there (write-only) do not grant exception.read; ask someone who holds exception.read whether it exists, or a tenant_admin of acme-labs for exception.read';

describe('svc records delete by a caller who cannot read the record, its answer lost', () => {
  it('a retry refused as a deleted record is: outcome unknown, most likely deleted, never a permission to ask for', async () => {
    const record = await made();
    const argv = ['records', 'delete', 'exceptions', record.id, '--yes'];
    const r = await svc.run(argv, { env: { ...writer, SVC_BASE_URL: keyless().url } });
    expect(isDeleted(record)).toBe(true);
    expect([r.code, r.stdout, r.stderr.replace(/req_\w+/, 'req_…')]).toEqual([
      1,
      '',
      `error: the platform's answer to the delete was lost (HTTP 503) and its retry was refused (HTTP 403 insufficient_role, request req_…) as a deleted record is refused to a caller who cannot read it; most likely this command deleted it, so the outcome is unknown; ${HINT(record.id)}\n`,
    ]);
    keyless().reset();
    const again = await made();
    const json = await svc.run([...argv.slice(0, 3), again.id, '--yes', '--json'], {
      env: { ...writer, SVC_BASE_URL: keyless().url },
    });
    // Session 25: the one shape of every error after a lost attempt (`lost_answer`, review24f M1),
    // and `outcome: unknown` as every error whose change may have been made has it.
    expect([json.code, json.stdout, JSON.parse(json.stderr.replace(/req_\w+/, 'req_…'))]).toEqual([
      1,
      '',
      {
        error: {
          code: 'outcome_unknown',
          message:
            "the platform's answer to the delete was lost (HTTP 503) and its retry was refused (HTTP 403 insufficient_role, request req_…) as a deleted record is refused to a caller who cannot read it; most likely this command deleted it, so the outcome is unknown",
          exit_code: 1,
          hint: HINT(again.id),
          outcome: 'unknown',
          lost_answer: 'HTTP 503',
        },
      },
    ]);
    expect(isDeleted(again)).toBe(true);
  });

  it('an answer lost for good: the hint says svc cannot check for them, not "check whether it was made"', async () => {
    const record = await made();
    const r = await svc.run(['records', 'delete', 'exceptions', record.id, '--yes'], {
      env: { ...writer, SVC_BASE_URL: lossy().url },
    });
    expect(isDeleted(record)).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr.replace(/req_\w+/, 'req_…')).toBe(
      `error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ${HINT(record.id)}\n`,
    );
  });

  it('a DELETE that never reached the platform: the hint says a re-run tells, and the re-run deletes it (✓)', async () => {
    const record = await made();
    const argv = ['records', 'delete', 'exceptions', record.id, '--yes'];
    const r = await svc.run(argv, { env: { ...writer, SVC_BASE_URL: gateway().url } });
    expect(isDeleted(record)).toBe(false);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: gateway, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ${HINT(record.id)}\n`,
    ]);
    const again = await svc.run(argv, { env: writer });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`^✓ deleted exceptions record ${record.id} in fbbe4d31-beac-5b48-a287-2d8bcd45003b;`),
    );
    expect(isDeleted(record)).toBe(true);
  });

  it('the re-run after a delete that did happen: refused in words about a delete (exit 4)', async () => {
    const record = await made();
    await as(svc.sandbox(), LABS, 'DELETE', `/v1/exceptions/${record.id}`);
    const r = await svc.run(['records', 'delete', 'exceptions', record.id, '--yes'], { env: writer });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.split(' (HTTP 403')[0]).toBe(`error: ${DELETE_REFUSAL}`);
    expect(r.stderr).not.toMatch(/patch|member|exception\.assign|the permission the change needs/);
    // Session 17 (closing list): the re-run the hint above asks for said nothing of what its
    // refusal means after a lost answer; it says so itself (the platform refuses a non-reader this
    // delete only for a record missing or deleted), and no other credential as the fix.
    expect(r.stderr.replace(/request req_\w+/, 'request req_…')).toBe(
      `error: ${DELETE_REFUSAL} (HTTP 403, insufficient_role, request req_…); the platform refuses you this delete only when exceptions record ${record.id} is missing or deleted: after an earlier run of this delete whose answer was lost, that run most likely deleted it; someone who holds exception.read can check with \`svc records get exceptions ${record.id}\`\n`,
    );
  });
});

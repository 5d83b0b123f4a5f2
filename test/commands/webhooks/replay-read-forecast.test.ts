import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { admin, deadLetteredQueue, dlqEntries } from '../../helpers/webhooks.js';

// Session 13 review (review-authz R1, closing note "Open, not fixed"): a replay takes the
// permission that reads the event data (EVENT_READ_PERMISSIONS), but `replay --dry-run` by a
// caller without it said "N would be replayed … 0 would fail" while the real run failed every row
// 403. A dry run predicts the platform's refusal from what the caller holds now (GET /v1/me's
// permissions, which need no role.read), rows planned fail with the platform's words.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 500 } });
const svc = bulkRunner(sandbox);

let roles = 0;
/** A token of `user` holding a custom role with `permissions` (until `expiresAt`, else for good). */
async function holderOf(user: string, permissions: string[], expiresAt?: string) {
  const role = await admin(sandbox(), 'POST', '/v1/roles', { name: `hooks${++roles}`, permissions });
  expect(role.status, role.text).toBe(201);
  const granted = await admin(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    role_id: role.body.id,
    ...(expiresAt ? { expires_at: expiresAt, justification: 'on call' } : {}),
  });
  expect(granted.status, granted.text).toBe(201);
  return svc.env({ SVC_TOKEN: sandbox().issueToken(user, { expiresInSeconds: 86_400 }).token });
}

const REFUSAL =
  "replaying a delivery (it re-sends the stored event to the webhook's URL) sends event data to its URL, so it takes the " +
  'permission that reads that data; you lack exception.read (exception.sla.breached): have someone who holds it do it';

describe('replay --dry-run by a caller who may not read the data (usr_compliance: no exception.read)', () => {
  it('--dlq: every row planned fail with the platform refusal, exit 7, as the real run ends', async () => {
    const env = await holderOf('usr_compliance', ['webhook.manage', 'webhook.read']);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 500 }, 2);
    const [a, b] = entries.map((e) => e.delivery_id);
    const dry = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--no-wait'], { env });
    expect([dry.code, dry.stdout, dry.stderr]).toEqual([
      7,
      `fail\t${a}\t\texception.sla.breached\t\t${REFUSAL}\nfail\t${b}\t\texception.sla.breached\t\t${REFUSAL}\n`,
      'dry run: 0 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 2 would fail\n' +
        `error: 2 of 2 items would fail: ${a}: ${REFUSAL}; ${b}: ${REFUSAL}; nothing was changed; fix them before running without --dry-run\n`,
    ]);
    const json = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--no-wait', '--json'], {
      env,
    });
    expect([json.code, JSON.parse(json.stdout)]).toEqual([
      7,
      entries.map((e) => ({
        plan: 'fail',
        delivery_id: e.delivery_id,
        dlq_entry_id: e.id,
        event_type: 'exception.sla.breached',
        event_id: e.event_id,
        error: { code: 'insufficient_permission', message: REFUSAL },
        dry_run: true,
      })),
    ]);
    // What the real run does, row for row.
    const real = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait'], { env });
    expect([real.code, real.stdout]).toEqual([
      7,
      `failed\t${a}\t\texception.sla.breached\t\t${REFUSAL}\nfailed\t${b}\t\texception.sla.breached\t\t${REFUSAL}\n`,
    ]);
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual(
      entries.map((e) => e.id),
    );
  });

  it('a named delivery: the refusal and exit 4, as the real run', async () => {
    const env = await holderOf('usr_compliance', ['webhook.manage', 'webhook.read']);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 500 }, 1);
    const id = entries[0]!.delivery_id;
    const dry = await svc.run(['webhooks', 'replay', webhook, id, '--dry-run', '--no-wait'], { env });
    const real = await svc.run(['webhooks', 'replay', webhook, id, '--no-wait'], { env });
    expect([
      real.code,
      real.stdout,
      real.stderr
        .split('\n')
        .at(-2)
        ?.replace(/ \(HTTP 403.*/, ''),
    ]).toEqual([4, `failed\t${id}\t\t\t\t${REFUSAL}\n`, `error: ${REFUSAL}`]);
    expect([dry.code, dry.stdout, dry.stderr]).toEqual([
      4,
      // The row as the real run's (above): the refusal comes before the entry is named.
      `fail\t${id}\t\t\t\t${REFUSAL}\n`,
      'dry run: 0 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 1 would fail; nothing was changed\n' +
        `error: ${REFUSAL}\n`,
    ]);
  });

  it('a just-in-time holder of exception.read is predicted to replay, as the platform lets them', async () => {
    const until = isoSeconds(sandbox().state.clock.now() + 2 * 3600_000);
    const env = await holderOf('usr_lead', ['webhook.manage', 'webhook.read', 'exception.read'], until);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 500 }, 1);
    const dry = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--no-wait'], { env });
    expect([dry.code, dry.stdout]).toEqual([
      0,
      `replay\t${entries[0]!.delivery_id}\t\texception.sla.breached\t\t\n`,
    ]);
    const real = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait'], { env });
    expect(real.code, real.stderr).toBe(0);
  });

  // Review 14 R2: the catalog said replaying takes the data's read permission "held without an
  // end date", where the platform (above) takes it held now.
  it('the permission catalog says what the platform does: held now for a replay', async () => {
    const list = await svc.run(['roles', 'permissions']);
    expect([list.code, list.stderr]).toEqual([0, '']);
    expect(list.stdout.split('\n').find((r) => r.startsWith('webhook.manage\t'))).toBe(
      'webhook.manage\tCreate, change and delete webhooks, rotate their secrets, send test events, replay and discard ' +
        'deliveries (creating one or rotating its secret, a standing credential, takes webhook.manage held without an ' +
        "end date; pointing a webhook at data takes that data's read permission held without an end date; replaying " +
        'a delivery takes it held now, a just-in-time grant too)\ttenant_admin\ttenant',
    );
  });
});

describe('--dry-run by a caller without webhook.manage (webhook.read only)', () => {
  const lacks = (what: string) =>
    `${what} needs permission webhook.manage in acme-treasury, which your live roles there do not grant; ask an administrator of acme-treasury`;

  // The real run stops at its first refusal of the caller (403 insufficient_role: attack24b F3),
  // exit 4, the rows not started left to resume; its rows fail as the dry run's are planned, and
  // the dry run ends as it will (review24e L3: it said 7).
  it('replay --dlq and dlq discard --all plan every row fail, exit 4, as their real runs end', async () => {
    const env = await holderOf('usr_reviewer', ['webhook.read']);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 500 }, 1);
    const [entry] = entries;
    const replay = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--no-wait'], { env });
    expect([replay.code, replay.stdout]).toEqual([
      4,
      `fail\t${entry!.delivery_id}\t\texception.sla.breached\t\t${lacks('replaying deliveries')}\n`,
    ]);
    const discard = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--dry-run'], { env });
    expect(discard.stderr).toBe(
      `dry run: 0 would be discarded, 0 would be skipped, 1 would fail\nerror: 1 of 1 item would fail: ${entry!.id}: ${lacks('discarding dead-letter entries')}; the real run would stop at the first the caller's roles do not allow; nothing was changed; once the caller holds a role that allows it (ask an administrator), run it without --dry-run\n`,
    );
    expect([discard.code, discard.stdout]).toEqual([
      4,
      `fail\t${entry!.id}\t\t\t\t${lacks('discarding dead-letter entries')}\n`,
    ]);
    const real = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes'], { env });
    expect([real.code, real.stdout.replace(/\t[^\t]*$/, '')]).toEqual([4, `failed\t${entry!.id}\t\t\t`]);
    expect(real.stderr).toContain(
      "error: stopped after 1 of 1: the platform refused an item because the caller's roles do not allow it now",
    );
    expect(real.stdout).toContain('needs permission webhook.manage in tenant acme-treasury');
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([entry!.id]);
  });

  // Review 14 R6: the words differ from the platform's (which name the caller's live roles, not in
  // GET /v1/me); the code is the same, and the help said "the refusal the real run gets".
  it("the dry run's refusal has the real run's code, and the help says no more than that", async () => {
    const env = await holderOf('usr_reviewer', ['webhook.read']);
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 500 }, 1);
    const code = async (...flags: string[]) => {
      const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--json', ...flags], { env });
      expect(r.code, r.stderr).toBe(4);
      return (JSON.parse(r.stdout) as Array<{ error: { code: string } }>).map((row) => row.error.code);
    };
    expect(await code('--dry-run')).toEqual(await code('--yes'));
    const help = async (...verb: string[]) =>
      (await svc.run(['webhooks', ...verb, '--help'])).stdout.replaceAll(/\s+/g, ' ');
    expect(await help('dlq', 'discard')).toContain(
      "(without webhook.manage, every row planned fail with a refusal like the real run's: the same code, in svc's words)",
    );
    expect(await help('replay')).toContain(
      "a replay the platform would refuse you is planned fail with a refusal like the real run's (the same code; the words of a missing webhook.manage are svc's), as the real run ends.",
    );
  });
});

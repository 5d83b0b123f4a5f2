/**
 * The checks of a bulk grant or revocation the platform answered from its record
 * (src/bulk/stored-grants.ts), against a platform whose reads of the user's assignments are given
 * here: the cases the sandbox does not make (assignments without audit trail ids told apart by
 * time, answers without times, a read that fails, another tenant's command line). The verbs'
 * own runs are in test/bulk/stored-answers-{now,lag}.test.ts and stored-grants-expiry.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { RoleAssignment } from '../../src/api/schemas/roles.js';
import { checkStoredGrant, checkStoredRevocation } from '../../src/bulk/stored-grants.js';
import { SvcError } from '../../src/errors.js';
import type { Platform } from '../../src/platform/index.js';
import { inTimeZone } from '../helpers/time-zone.js';

const row = { user: 'usr_1', role: { id: 'role_fx', name: 'fx-desk' } };

/** An assignment of row's role, held unless `over` says otherwise. */
const assignment = (over: Partial<RoleAssignment> = {}): RoleAssignment => ({
  user_id: 'usr_1',
  role_id: 'role_fx',
  role_name: 'fx-desk',
  tenant_id: 'ten_1',
  assigned_by: 'usr_admin',
  assigned_at: '2026-11-20T10:00:00Z',
  expires_at: null,
  justification: null,
  audit_trail_id: 'aud_1',
  status: 'active',
  revoked_at: null,
  revoked_by: null,
  revocation_audit_trail_id: null,
  updated_at: null,
  updated_by: null,
  update_audit_trail_id: null,
  ...over,
});

/** A platform whose reads answer `reads` in turn (the last one again), recording what was asked. */
function platformOf(reads: (RoleAssignment[] | Error)[]) {
  const asked: { user: string; query: unknown; tenant: unknown }[] = [];
  const platform = {
    roles: {
      listAssignments: async (user: string, query: unknown, options: { tenant?: string }) => {
        const read = reads[Math.min(asked.length, reads.length - 1)]!;
        asked.push({ user, query, tenant: options.tenant });
        if (read instanceof Error) throw read;
        return { items: read, next_cursor: null };
      },
    },
    svc: (words: string) => `svc -p work ${words}`,
    svcAnyTenant: (words: string) => `svc -p work ${words}`,
  } as unknown as Platform;
  return { platform, asked };
}

const waits: number[] = [];
const stored = (over: { resumed?: boolean; afterLostAnswer?: boolean; tenant?: string } = {}) => ({
  resumed: true,
  afterLostAnswer: false,
  signal: new AbortController().signal,
  sleep: async (ms: number) => {
    waits.push(ms);
  },
  ...over,
});

/** What a check threw: its class, message and hint. */
async function thrown(check: Promise<unknown>) {
  const error = await check.then(
    () => undefined,
    (e: unknown) => e as Error & { hint?: string; code?: string },
  );
  if (error === undefined) return 'nothing thrown';
  const { category } = error as { category?: string };
  return {
    type: error.constructor.name,
    category,
    code: error.code,
    message: error.message,
    hint: error.hint,
  };
}

describe('checkStoredRevocation', () => {
  it('a revocation still so is counted, after one read of the user without ended assignments', async () => {
    const { platform, asked } = platformOf([[assignment({ role_id: 'role_other' })]]);
    await checkStoredRevocation(platform, row, { revoked_at: '2026-11-21T10:00:00Z' }, stored());
    expect(asked).toEqual([{ user: 'usr_1', query: {}, tenant: undefined }]);
  });

  it('without audit trail ids, a grant after the revocation is held again; one not after it is the revoked one, read again', async () => {
    const again = platformOf([[assignment({ audit_trail_id: '', assigned_at: '2026-11-21T10:00:01Z' })]]);
    expect(
      await thrown(
        checkStoredRevocation(again.platform, row, { revoked_at: '2026-11-21T10:00:00Z' }, stored()),
      ),
    ).toEqual({
      type: 'UndoneSinceError',
      category: 'conflict',
      code: 'changed_since',
      message:
        'revoked by the earlier run this one resumes at 2026-11-21T10:00:00Z (the platform answered with its record of it), but usr_1 holds fx-desk again, granted at 2026-11-21T10:00:01Z: not revoked now',
      hint: 'if it should not hold it, run the same command again: it revokes the grant held now (a new request)',
    });
    expect(again.asked).toHaveLength(1);
    // Granted at the very instant of the revocation: the revoked one, still listed (a lagging read).
    waits.length = 0;
    const same = platformOf([[assignment({ audit_trail_id: '', assigned_at: '2026-11-21T10:00:00Z' })], []]);
    await checkStoredRevocation(same.platform, row, { revoked_at: '2026-11-21T10:00:00Z' }, stored());
    expect([same.asked.length, waits]).toEqual([2, [250]]);
  });

  // attack22 (noticed): the times were read with Date.parse, a zone-less one in the machine's zone:
  // in New York the revoked grant, still listed, was "granted after the revocation", held again.
  it('without audit trail ids, reads a zone-less time as UTC (serverTime) in any machine zone', async () => {
    for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
      await inTimeZone(tz, async () => {
        const same = platformOf([
          [assignment({ audit_trail_id: '', assigned_at: '2026-11-21T10:00:00' })],
          [],
        ]);
        const revoked = { revoked_at: '2026-11-21T12:00:00+02:00' };
        expect([tz, await thrown(checkStoredRevocation(same.platform, row, revoked, stored()))]).toEqual([
          tz,
          'nothing thrown',
        ]);
        expect(same.asked).toHaveLength(2);
      });
    }
  });

  it('by audit trail id when both carry one, whatever the times', async () => {
    const other = platformOf([
      [assignment({ audit_trail_id: 'aud_2', assigned_at: '2026-11-01T00:00:00Z' })],
    ]);
    const revoked = { revoked_at: '2026-11-21T10:00:00Z', audit_trail_id: 'aud_1' };
    expect(await thrown(checkStoredRevocation(other.platform, row, revoked, stored()))).toMatchObject({
      type: 'UndoneSinceError',
    });
    const same = platformOf([
      [assignment({ audit_trail_id: 'aud_1', assigned_at: '2026-11-22T00:00:00Z' })],
      [],
    ]);
    await checkStoredRevocation(same.platform, row, revoked, stored());
    expect(same.asked).toHaveLength(2);
    // Only one of them carries an id: told by time (granted at the revocation's instant: the revoked one).
    const one = platformOf([[assignment({ audit_trail_id: '', assigned_at: '2026-11-21T10:00:00Z' })], []]);
    await checkStoredRevocation(one.platform, row, revoked, stored());
    expect(one.asked).toHaveLength(2);
  });

  it('an ended assignment listed (a server that lists them anyway) is no grant held', async () => {
    const { platform, asked } = platformOf([[assignment({ status: 'expired' })]]);
    await checkStoredRevocation(platform, row, { revoked_at: '2026-11-21T10:00:00Z' }, stored());
    expect(asked).toHaveLength(1);
  });

  it('no time to tell by: held again in a resumed run, but after a lost answer it may be the revoked one', async () => {
    const held = [assignment({ audit_trail_id: '' })];
    expect(await thrown(checkStoredRevocation(platformOf([held]).platform, row, {}, stored()))).toMatchObject(
      {
        type: 'UndoneSinceError',
        message:
          'revoked by the earlier run this one resumes (the platform answered with its record of it), but usr_1 holds fx-desk again, granted at 2026-11-20T10:00:00Z: not revoked now',
      },
    );
    waits.length = 0;
    const lost = stored({ resumed: false, afterLostAnswer: true });
    expect(await thrown(checkStoredRevocation(platformOf([held]).platform, row, {}, lost))).toEqual({
      type: 'NotShownYetError',
      category: 'failure',
      code: 'not_shown_yet',
      message:
        "revoked by an attempt of this run whose answer was lost (the platform answered with its record of it), but after 4 reads the platform still lists usr_1's fx-desk held, and not as a grant made after the revocation: a read that lags behind the change (a server's reads may), or it was changed since; svc cannot tell",
      hint: 'run the same command again to check it again (the same key is answered the same), or check it with svc -p work roles assignments usr_1',
    });
    expect(waits).toEqual([250, 500, 1000]);
  });

  it('a read that fails is an item error naming the stored answer; anything else is thrown as it is', async () => {
    const failed = platformOf([new SvcError('failure', 'the server answered 503', { code: 'unavailable' })]);
    expect(await thrown(checkStoredRevocation(failed.platform, row, {}, stored()))).toEqual({
      type: 'ItemError',
      category: 'failure',
      code: 'unavailable',
      message:
        'revoked by the earlier run this one resumes (the platform answered with its record of it), but whether it is still so could not be read: the server answered 503',
      hint: 'run the same command again to check it again',
    });
    // No code of its own: its category is the code.
    const busy = platformOf([new SvcError('conflict', 'the user is being changed')]);
    const error = await checkStoredRevocation(busy.platform, row, {}, stored()).catch((e) => e);
    expect([error.constructor.name, error.category, error.code]).toEqual([
      'ItemError',
      'conflict',
      'conflict',
    ]);
    const bug = new TypeError('x is not a function');
    expect(await checkStoredRevocation(platformOf([bug]).platform, row, {}, stored()).catch((e) => e)).toBe(
      bug,
    );
  });
});

describe('checkStoredGrant', () => {
  const made = { assigned_at: '2026-11-20T10:00:00Z', expires_at: null, audit_trail_id: 'aud_1' };

  it('a grant held as made: its expiry, nothing else', async () => {
    const { platform, asked } = platformOf([[assignment()]]);
    expect(await checkStoredGrant(platform, row, made, stored())).toEqual({ expires_at: null });
    expect(asked).toEqual([{ user: 'usr_1', query: { include_inactive: true }, tenant: undefined }]);
  });

  it('another tenant (apply): its reads and the command it names go there', async () => {
    const { platform, asked } = platformOf([[]]);
    const result = await thrown(checkStoredGrant(platform, row, made, stored({ tenant: 'acme eu' })));
    expect(asked[0]).toEqual({ user: 'usr_1', query: { include_inactive: true }, tenant: 'acme eu' });
    expect(result).toMatchObject({
      type: 'NotShownYetError',
      hint: "run the same command again to check it again (the same key is answered the same), or check it with svc -p work --tenant 'acme eu' roles assignments usr_1",
    });
  });

  it('ended since: says how, by the assignment it made (its audit trail id), else the last listed', async () => {
    const revoked = assignment({ status: 'revoked', revoked_at: '2026-11-21T00:00:00Z' });
    const expired = assignment({ status: 'expired', audit_trail_id: 'aud_0' });
    // Listed oldest first: the one it made between two others.
    const later = assignment({ status: 'expired', audit_trail_id: 'aud_2' });
    const words = (how: string) =>
      `granted by the earlier run this one resumes at 2026-11-20T10:00:00Z (the platform answered with its record of it), but ${how}: usr_1 does not hold fx-desk now`;
    expect(
      await thrown(checkStoredGrant(platformOf([[expired, revoked, later]]).platform, row, made, stored())),
    ).toEqual({
      type: 'UndoneSinceError',
      category: 'conflict',
      code: 'changed_since',
      message: words('it was revoked at 2026-11-21T00:00:00Z'),
      hint: 'if it should hold it, run the same command again: it grants it anew (a new request)',
    });
    const noId = { assigned_at: made.assigned_at };
    expect(
      await thrown(checkStoredGrant(platformOf([[expired, revoked, later]]).platform, row, noId, stored())),
    ).toMatchObject({ message: words('its assignment is expired') });
  });

  it('not listed through every read: unknown, never changed since', async () => {
    waits.length = 0;
    const other = assignment({ status: 'expired', audit_trail_id: 'aud_9' });
    expect(
      await thrown(
        checkStoredGrant(platformOf([[other]]).platform, row, { audit_trail_id: 'aud_1' }, stored()),
      ),
    ).toEqual({
      type: 'NotShownYetError',
      category: 'failure',
      code: 'not_shown_yet',
      message:
        "granted by the earlier run this one resumes (the platform answered with its record of it), but after 4 reads the platform does not list usr_1's fx-desk granted: a read that lags behind the change (a server's reads may), or it was changed since; svc cannot tell",
      hint: 'run the same command again to check it again (the same key is answered the same), or check it with svc -p work roles assignments usr_1',
    });
    expect(waits).toEqual([250, 500, 1000]);
  });

  it('held with another expiry: the one held now, and that it changed since', async () => {
    const held = platformOf([[assignment({ expires_at: '2026-12-01T00:00:00Z' })]]);
    expect(
      await checkStoredGrant(held.platform, row, { ...made, expires_at: '2026-11-30T00:00:00Z' }, stored()),
    ).toEqual({
      expires_at: '2026-12-01T00:00:00Z',
      reason: 'expiry_changed_since',
      granted_expires_at: '2026-11-30T00:00:00Z',
      note: 'granted until 2026-11-30T00:00:00Z, and its expiry was changed since: held until 2026-12-01T00:00:00Z now',
    });
    expect(await checkStoredGrant(held.platform, row, made, stored())).toMatchObject({
      note: 'granted with no end, and its expiry was changed since: held until 2026-12-01T00:00:00Z now',
    });
    // The same instant written otherwise is the same expiry; no expiry in the answer: nothing to compare.
    expect(
      await checkStoredGrant(
        held.platform,
        row,
        { ...made, expires_at: '2026-12-01T01:00:00+01:00' },
        stored(),
      ),
    ).toEqual({ expires_at: '2026-12-01T00:00:00Z' });
    expect(await checkStoredGrant(held.platform, row, { audit_trail_id: 'aud_1' }, stored())).toEqual({
      expires_at: '2026-12-01T00:00:00Z',
    });
  });

  it('--extend: another expiry held now is changed since; the same one is not', async () => {
    const held = platformOf([[assignment({ expires_at: null })]]);
    expect(
      await thrown(checkStoredGrant(held.platform, row, made, stored(), '2026-12-01T00:00:00Z')),
    ).toEqual({
      type: 'UndoneSinceError',
      category: 'conflict',
      code: 'changed_since',
      message:
        'granted by the earlier run this one resumes at 2026-11-20T10:00:00Z (the platform answered with its record of it), but its expiry was changed since: usr_1 holds fx-desk with no end, not until 2026-12-01T00:00:00Z',
      hint: 'if it should end as the file says, run the same command again: it extends it anew (a new request)',
    });
    expect(await checkStoredGrant(held.platform, row, made, stored(), null)).toEqual({ expires_at: null });
  });

  it('a status word svc does not know: the row could not be checked, with the command to look', async () => {
    const odd = platformOf([[assignment({ status: 'suspended' as RoleAssignment['status'] })]]);
    expect(await thrown(checkStoredGrant(odd.platform, row, made, stored()))).toEqual({
      type: 'ItemError',
      category: 'failure',
      code: 'unknown_status',
      message:
        'granted by the earlier run this one resumes at 2026-11-20T10:00:00Z (the platform answered with its record of it), but the platform lists usr_1\'s assignment of fx-desk with status "suspended", which svc does not know (held or ended)',
      hint: 'check it with svc -p work roles assignments usr_1',
    });
  });
});

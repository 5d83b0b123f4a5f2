// How a held grant is judged against a planned one (src/ascode/held-expiry.ts): the rule svc plan
// leaves a grant alone by, which a run meeting a grant made meanwhile and a resumed run share
// (attack21 F2).
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import { expiryVerb, holdsAsPlanned } from '../../src/ascode/held-expiry.js';
import type { PlanDocument } from '../../src/ascode/plan.js';
import { planChangeProblem } from '../../src/ascode/plan-schema.js';

const DAY = 86_400_000;
const anchor = Date.parse('2026-11-26T04:43:09Z');
const planned = isoSeconds(anchor + 30 * DAY); // 2026-12-26T04:43:09Z
const now = anchor + 5_000; // five seconds after the plan

describe('expiryVerb: what svc plan does to a held grant', () => {
  it.each([
    ['in', '2026-12-26T04:43:09Z', undefined],
    ['in', '2026-12-20T00:00:00Z', undefined],
    ['in', '2026-12-26T04:43:10Z', 'shorten'],
    ['in', null, 'shorten'],
    ['at', '2026-12-26T04:43:09+00:00', undefined],
    ['at', '2026-12-26T04:43:08Z', 'extend'],
    ['at', '2026-12-26T04:43:10Z', 'shorten'],
    ['at', null, 'shorten'],
  ] as const)('%s %s: %s', (kind, held, verb) => {
    expect(expiryVerb(kind, held, planned)).toBe(verb);
  });
  it('a permanent entry: only a permanent grant is left alone', () => {
    expect(expiryVerb('never', null, null)).toBeUndefined();
    expect(expiryVerb('never', planned, null)).toBe('extend');
  });
});

describe('holdsAsPlanned: a grant held meanwhile, judged at the platform time now', () => {
  const grant = { expires_at: planned, expires_in: '30d' };
  it('an expires_in grant another run made a few seconds later is as planned, one ending past now + 30d is not', () => {
    expect(holdsAsPlanned(grant, isoSeconds(anchor + 3_000 + 30 * DAY), now)).toBe(true);
    expect(holdsAsPlanned(grant, isoSeconds(now + 30 * DAY), now)).toBe(true);
    expect(holdsAsPlanned(grant, isoSeconds(now + 1_000 + 30 * DAY), now)).toBe(false);
    expect(holdsAsPlanned(grant, '2026-12-01T00:00:00Z', now)).toBe(true);
    expect(holdsAsPlanned(grant, null, now)).toBe(false);
  });
  it('an end time is that instant only; a plan written without expires_in is judged by its expires_at alone', () => {
    const at = { expires_at: planned };
    expect(holdsAsPlanned(at, '2026-12-26T04:43:09.000Z', now)).toBe(true);
    expect(holdsAsPlanned(at, isoSeconds(anchor + 3_000 + 30 * DAY), now)).toBe(false);
    expect(holdsAsPlanned({ expires_at: null }, null, now)).toBe(true);
    expect(holdsAsPlanned({ expires_at: null }, planned, now)).toBe(false);
  });
});

describe("a saved plan's expires_in agrees with its expires_at", () => {
  const doc = (grant: Record<string, unknown>) =>
    ({
      tenants: [
        {
          changes: [
            {
              kind: 'grant',
              action: 'create',
              verb: 'grant',
              name: 'usr_1 ops',
              fields: [{ field: 'expires_at', to: grant.expires_at }],
              grant: { user: 'usr_1', role: 'ops', role_id: 'role_1', justification: 'j', ...grant },
            },
          ],
        },
      ],
    }) as unknown as PlanDocument;
  it('a span that is no duration, or on a permanent grant, is refused', () => {
    expect(planChangeProblem(doc({ expires_at: planned, expires_in: '30d' }))).toBeUndefined();
    expect(planChangeProblem(doc({ expires_at: planned }))).toBeUndefined();
    expect(planChangeProblem(doc({ expires_at: planned, expires_in: 'never' }))).toBe(
      'tenants[0].changes[0].grant.expires_in is "never", not the span of its expires_at ("2026-12-26T04:43:09Z")',
    );
    expect(planChangeProblem(doc({ expires_at: null, expires_in: '30d' }))).toBe(
      'tenants[0].changes[0].grant.expires_in is "30d", not the span of its expires_at (null)',
    );
  });
});

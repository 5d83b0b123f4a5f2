/**
 * storedSecretNow's verdicts, each branch (review29b H1, M1): evidence of another secret is
 * 'replaced' only for a read in the answer's own second that is not the object as it was before
 * the request; a read older than the answer (no rotation time, one clearly before, the state the
 * read before showed) is 'lagging'.
 */
import { describe, expect, it } from 'vitest';
import { type SecretEvidence, storedSecretNow } from '../../src/platform/stored-answer.js';

const other: SecretEvidence = () => false;
const same: SecretEvidence = () => true;
const T1 = '2026-11-27T01:00:05Z';
const answer = { secret_rotated_at: T1, created_at: '2026-11-27T00:00:00Z' };

describe('storedSecretNow', () => {
  it('a later rotation time: rotated-since, whatever the evidence', () => {
    expect(storedSecretNow(answer, { secret_rotated_at: '2026-11-27T01:00:07Z' }, same)).toBe(
      'rotated-since',
    );
  });
  it('the same instant to the millisecond: current', () => {
    const ms = { secret_rotated_at: '2026-11-27T01:00:05.123Z' };
    expect(storedSecretNow(ms, ms, other)).toBe('current');
  });
  it('another secret, a read in the same second, not the old state: replaced', () => {
    const before = { secret_rotated_at: '2026-11-27T01:00:00Z', secret_last4: 'aaaa' };
    const read = { secret_rotated_at: T1, secret_last4: 'bbbb' };
    expect(storedSecretNow(answer, read, other, before)).toBe('replaced');
    expect(storedSecretNow(answer, { secret_rotated_at: T1 }, other)).toBe('replaced');
  });
  it('another secret, a server that gives no time at all: replaced', () => {
    expect(storedSecretNow({}, {}, other)).toBe('replaced');
  });
  it('another secret, a read that shows no rotation while the answer has one: lagging', () => {
    expect(storedSecretNow(answer, { secret_rotated_at: null }, other)).toBe('lagging');
    expect(storedSecretNow(answer, {}, other)).toBe('lagging');
  });
  it('another secret, a read clearly before the answer: lagging', () => {
    expect(storedSecretNow(answer, { secret_rotated_at: '2026-11-27T01:00:00Z' }, other)).toBe('lagging');
  });
  it('another secret, a read in the same second showing the state the read before did: lagging', () => {
    const state = { secret_rotated_at: T1, secret_last4: 'aaaa' };
    expect(storedSecretNow(answer, { ...state }, other, state)).toBe('lagging');
  });
  it('the same secret: current; no evidence in the same second: tie; no time now: current', () => {
    expect(storedSecretNow(answer, { secret_rotated_at: T1 }, same)).toBe('current');
    expect(storedSecretNow(answer, { secret_rotated_at: T1 })).toBe('tie');
    expect(storedSecretNow(answer, { secret_rotated_at: null })).toBe('current');
  });
});

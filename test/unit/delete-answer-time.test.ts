/**
 * A DELETE's deleted mark is evidence only when it is no later than the answer (session 20): by 5 s
 * at most against its Date header, to the end of its second (one server's clocks; a whole second
 * rounded up: review20 F3; review20d D4), by 2 minutes against this machine's clock when the answer
 * carries no Date (two clocks). A mark further ahead is a deletion scheduled, said with when.
 */
import { describe, expect, it } from 'vitest';
import { type AnswerTime, answerTime, deleteVerdict } from '../../src/platform/delete-answer.js';

const DATE = 'Sun, 01 Mar 2026 10:00:00 GMT';
const AT = Date.UTC(2026, 2, 1, 10, 0, 0);
const role = (deleted_at: string) => ({ id: 'role_1', name: 'r', deleted_at });
const verdict = (mark: string, at: AnswerTime) =>
  deleteVerdict(role(mark), { id: 'role_1' }, { ended: ['deleted'] }, 'role_1', at);

describe('answerTime', () => {
  it('is the Date header to the end of its second, else now', () => {
    expect(answerTime(DATE, 0)).toEqual({ at: AT + 999, from: AT, leewayMs: 5_000 });
    expect(answerTime(undefined, 1234)).toEqual({ at: 1234, from: 1234, leewayMs: 120_000 });
    expect(answerTime('not a date', 1234)).toEqual({ at: 1234, from: 1234, leewayMs: 120_000 });
  });

  it('adds the time the request took to a Date (stamped when it arrived: Apache httpd, review21 F2)', () => {
    expect(answerTime(DATE, 17_000, 10_000)).toEqual({
      at: AT + 999 + 7_000,
      from: AT + 7_000,
      leewayMs: 5_000,
    });
    // Sent "after" it answered (a clock set back meanwhile): nothing taken.
    expect(answerTime(DATE, 10_000, 17_000)).toEqual({ at: AT + 999, from: AT, leewayMs: 5_000 });
    expect(answerTime(undefined, 17_000, 10_000)).toEqual({ at: 17_000, from: 17_000, leewayMs: 120_000 });
    // A mark 7 s after the Date of a request that took 7 s: made; one 13 s after it: scheduled.
    expect(verdict('2026-03-01T10:00:07Z', answerTime(DATE, 17_000, 10_000))).toEqual({ done: true });
    expect(verdict('2026-03-01T10:00:13Z', answerTime(DATE, 17_000, 10_000)).done).toBe(false);
  });
});

describe('a deleted mark against the answer time', () => {
  it('no later than its Date, or within 5 s of it (a second rounded up, skew): done; further: scheduled, saying when (D4)', () => {
    expect(verdict('2026-03-01T10:00:00.900Z', answerTime(DATE, 0))).toEqual({ done: true });
    expect(verdict('2026-03-01T09:59:00Z', answerTime(DATE, 0))).toEqual({ done: true });
    // A DATETIME(0) column rounds 10:00:00.884 up (review20 F3): the deletion just made.
    expect(verdict('2026-03-01T10:00:01Z', answerTime(DATE, 0))).toEqual({ done: true });
    expect(verdict('2026-03-01T10:00:05.999Z', answerTime(DATE, 0))).toEqual({ done: true });
    expect(verdict('2026-03-01T10:00:06Z', answerTime(DATE, 0)).done).toBe(false);
    expect(verdict('2026-03-01T10:01:30Z', answerTime(DATE, 0))).toEqual({
      done: false,
      against:
        'says "deleted_at": "2026-03-01T10:01:30Z", 90 s after the answer itself: it reads as a deletion scheduled to take effect then, not one made',
    });
    expect(verdict('2026-03-02T12:30:00Z', answerTime(DATE, 0)).against).toBe(
      'says "deleted_at": "2026-03-02T12:30:00Z", 1 d 2 h 30 min after the answer itself: it reads as a deletion scheduled to take effect then, not one made',
    );
  });

  it('without a Date, against this machine clock', () => {
    expect(verdict('2026-03-01T10:00:00Z', answerTime(undefined, AT - 120_001)).done).toBe(false);
    expect(verdict('2026-03-01T10:00:00Z', answerTime(undefined, AT - 120_000)).done).toBe(true);
    expect(verdict('2026-03-01T10:00:00Z', answerTime(undefined, AT)).done).toBe(true);
  });

  it('a status beside the mark: an ended word or the object own word is data, any other is against', () => {
    const at = answerTime(DATE, 0);
    const mark = '2026-03-01T09:00:00Z';
    const rule = { ended: ['deleted'], own: ['enabled', 'disabled'] };
    const judge = (status: string) =>
      deleteVerdict({ id: 'wh_1', status, deleted_at: mark }, { id: 'wh_1' }, rule, 'wh_1', at);
    expect(judge('Enabled')).toEqual({ done: true });
    expect(judge('deleted')).toEqual({ done: true });
    expect(judge('active')).toEqual({ done: false, against: 'says "status": "active"' });
    // Without a mark, an own word is no evidence, and says nothing against either.
    expect(deleteVerdict({ id: 'wh_1', status: 'enabled' }, { id: 'wh_1' }, rule, 'wh_1', at)).toEqual({
      done: false,
      against: 'says "status": "enabled"',
    });
  });
});

// The record of a refresh sent whose answer was never saved (src/auth/abandoned-refresh.ts): the
// note a second stop leaves in refresh-abandoned.json (only the refresh token's SHA-256, never the
// token), found again only for that very token, cleared by a refresh saved or a login since; the
// mark a refresh sets before it is sent, and the refusal an older svc reads beside it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  abandonedBy,
  clearAbandoned,
  IN_FLIGHT,
  inFlightRefusal,
  noteAbandoned,
  sentMark,
  sentUnsaved,
  withoutInFlight,
} from '../../src/auth/abandoned-refresh.js';
import type { StoredCredential } from '../../src/config/store.js';
import { tempDir } from '../helpers/temp.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A temporary directory of this file's, removed after its tests (attack25b L7: they were left). */
const dir = () => {
  const d = tempDir('svc-abandoned-');
  made.push(d);
  return d;
};
const notes = (d: string) => join(d, 'refresh-abandoned.json');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const AT = Date.UTC(2026, 10, 26, 9, 30, 15, 678);
const note = (token: string) => ({
  refresh_token_sha256: sha(token),
  pid: process.pid,
  at: '2026-11-26T09:30:15Z',
});

describe('the note of an abandoned refresh (refresh-abandoned.json)', () => {
  it('is written owner-only, one profile per key, tab-indented, the token only as its digest', () => {
    const d = dir();
    noteAbandoned(d, 'p', 'rt-1', AT);
    expect(statSync(notes(d)).mode & 0o777).toBe(0o600);
    const text = readFileSync(notes(d), 'utf8');
    expect(text).toBe(`${JSON.stringify({ p: note('rt-1') }, undefined, '\t')}\n`);
    expect(text).not.toContain('rt-1');
    noteAbandoned(d, 'q', 'rt-2', AT);
    expect(JSON.parse(readFileSync(notes(d), 'utf8'))).toEqual({ p: note('rt-1'), q: note('rt-2') });
  });

  it('is found for the very token it names; another token (a login since) removes it', () => {
    const d = dir();
    noteAbandoned(d, 'p', 'rt-1', AT);
    noteAbandoned(d, 'q', 'rt-2', AT);
    expect(abandonedBy(d, 'p', 'rt-1')).toEqual(note('rt-1'));
    expect(abandonedBy(d, 'other', 'rt-1')).toBeUndefined();
    expect(abandonedBy(d, 'p', 'rt-new')).toBeUndefined();
    expect(JSON.parse(readFileSync(notes(d), 'utf8'))).toEqual({ q: note('rt-2') });
    // The last note gone: the file goes with it.
    expect(abandonedBy(d, 'q', 'rt-other')).toBeUndefined();
    expect(existsSync(notes(d))).toBe(false);
  });

  it('clearAbandoned forgets one profile’s note, and leaves the file as it is when it has none', () => {
    const d = dir();
    writeFileSync(notes(d), JSON.stringify({ p: note('rt-1'), q: note('rt-2') }));
    clearAbandoned(d, 'other');
    expect(readFileSync(notes(d), 'utf8')).toBe(JSON.stringify({ p: note('rt-1'), q: note('rt-2') }));
    clearAbandoned(d, 'p');
    expect(JSON.parse(readFileSync(notes(d), 'utf8'))).toEqual({ q: note('rt-2') });
    clearAbandoned(d, 'q');
    expect(existsSync(notes(d))).toBe(false);
    clearAbandoned(d, 'q');
    expect(existsSync(notes(d))).toBe(false);
  });

  it.each([
    ['is no JSON', '{"p": '],
    ['holds null', 'null'],
    ['holds an array', JSON.stringify([note('rt-1')])],
    ['holds a text', JSON.stringify('p')],
  ])('a file that %s holds no note, and a new note replaces it', (_, text) => {
    const d = dir();
    writeFileSync(notes(d), text);
    expect(abandonedBy(d, 'p', 'rt-1')).toBeUndefined();
    // An array's index "0" is no profile's note either.
    expect(abandonedBy(d, '0', 'rt-1')).toBeUndefined();
    noteAbandoned(d, 'p', 'rt-1', AT);
    expect(JSON.parse(readFileSync(notes(d), 'utf8'))).toEqual({ p: note('rt-1') });
  });

  it('noting is best effort: a directory that cannot be written throws nothing', () => {
    const d = join(dir(), 'missing');
    expect(() => noteAbandoned(d, 'p', 'rt-1', AT)).not.toThrow();
    expect(existsSync(d)).toBe(false);
  });
});

describe('the mark a refresh sets before it is sent', () => {
  it('names the token by its digest, this process and the time to the second', () => {
    expect(sentMark('rt-1', AT)).toEqual(note('rt-1'));
  });

  it('sentUnsaved: only a mark of the credential’s very refresh token', () => {
    const base: StoredCredential = {
      type: 'oauth',
      access_token: 'at',
      refresh_token: 'rt-1',
      obtained_at: 'x',
    };
    const mark = sentMark('rt-1', AT);
    expect(sentUnsaved({ ...base, refresh_sent: mark })).toBe(mark);
    expect(sentUnsaved(base)).toBeUndefined();
    expect(sentUnsaved({ ...base, refresh_sent: sentMark('rt-0', AT) })).toBeUndefined();
    const { refresh_token: _, ...noRefresh } = base;
    expect(sentUnsaved({ ...noRefresh, refresh_sent: mark })).toBeUndefined();
  });

  it('the refusal set beside it says what an older svc must not do, and this svc reads past it', () => {
    const mark = sentMark('rt-1', AT);
    const refusal = inFlightRefusal('p', mark);
    expect(refusal).toEqual({
      code: 'refresh_in_flight',
      message: `the session of profile "p" was being refreshed by svc process ${process.pid} at 2026-11-26T09:30:15Z: if that process still runs, run the command again once it is done; if it ended before it saved the answer, the stored refresh token may be spent, and sending it again would make the platform revoke the login`,
      at: '2026-11-26T09:30:15Z',
    });
    expect(IN_FLIGHT).toBe('refresh_in_flight');
    const base: StoredCredential = {
      type: 'oauth',
      access_token: 'at',
      refresh_token: 'rt-1',
      obtained_at: 'x',
    };
    expect(withoutInFlight({ ...base, refresh_sent: mark, refresh_refused: refusal })).toEqual({
      ...base,
      refresh_sent: mark,
    });
    const other = { code: 'invalid_grant', message: 'refused', at: 'then' };
    const refused = { ...base, refresh_refused: other };
    expect(withoutInFlight(refused)).toBe(refused);
    expect(withoutInFlight(base)).toBe(base);
  });
});

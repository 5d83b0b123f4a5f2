import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expiresAt, parseDuration, parseTime } from '../../../src/api/expiry.js';
import { closest } from '../../../src/api/suggest.js';
import { fileRows, type GrantRow, type RevokeRow, type RowRules } from '../../../src/commands/roles/rows.js';
import { roleOf } from '../../helpers/bulk.js';
import { useTempDir } from '../../helpers/temp.js';

const NOW = Date.parse('2026-01-15T09:30:00Z');
const role = roleOf;
const ROLES = [
  role('tenant_admin'),
  role('tenant_viewer'),
  role('org_admin', { scope: 'organization' }),
  role('role_0123456789abcdef01234567', { name: 'fx-desk', kind: 'custom' }),
];
const dir = useTempDir('svc-rows-');
/** Every row and every problem of a CSV file, checked as svc checks a bulk file. */
async function validate(csv: string, options: Partial<RowRules> = {}) {
  const path = join(dir, 'f.csv');
  writeFileSync(path, csv);
  const rules = {
    kind: 'assign' as const,
    roles: ROLES,
    defaults: {},
    anchorMs: NOW,
    nowMs: NOW,
    ...options,
  };
  const rows: Array<GrantRow | RevokeRow> = [];
  const problems: Array<{ line: number; message: string }> = [];
  for await (const event of fileRows(path, 'f.csv', rules, { duplicates: true })) {
    if ('row' in event) rows.push(event.row);
    else for (const message of event.problems) problems.push({ line: event.line, message });
  }
  return { rows, problems };
}

describe('durations and times', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['8h', 8 * 3600_000],
    ['7d', 7 * 86_400_000],
    [' 2H ', 2 * 3600_000],
    ['365d', 365 * 86_400_000],
  ])('%j is %i ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({
      ok: true,
      value: { kind: 'in', ms, text: text.trim().toLowerCase() },
    });
  });

  it.each([
    ['8', '"8" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never'],
    ['1.5h', '"1.5h" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never'],
    ['-1h', '"-1h" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never'],
    ['8s', `"8s": a grant's expiry is not counted in seconds; use m, h or d (30m, 8h, 7d), at least 1m`],
    ['0d', 'a duration must be longer than zero, got "0d"'],
    ['366d', '"366d" is longer than 365 days; give an end time (expires at) instead'],
  ])('%j is refused: %s', (text, message) => {
    expect(parseDuration(text)).toEqual({ ok: false, message });
  });

  it('never is a permanent grant', () => {
    expect(parseDuration('never')).toEqual({ ok: true, value: { kind: 'never' } });
    expect(expiresAt({ kind: 'never' }, NOW)).toBeNull();
  });

  it.each([
    ['2026-01-15T10:00:00Z', '2026-01-15T10:00:00Z'],
    ['2026-01-15T12:00:00+02:00', '2026-01-15T10:00:00Z'],
    ['2026-01-15T10:00Z', '2026-01-15T10:00:00Z'],
    ['2026-01-15T10:00:00.900Z', '2026-01-15T10:00:00Z'],
  ])('time %j expires at %s', (text, iso) => {
    const parsed = parseTime(text, NOW);
    expect(parsed.ok && expiresAt(parsed.value, NOW)).toBe(iso);
  });

  it.each([
    ['2026-01-15', 'is a date alone: add a time and a time zone, e.g. 2026-01-15T00:00:00Z'],
    ['2026-01-15T10:00:00', 'not an ISO 8601 time with a time zone'],
    ['2026-02-30T10:00:00Z', 'is not a date: February has 28 days'],
    ['2026-01-15T09:30:00Z', 'is in the past'],
  ])('time %j is refused (%s)', (text, message) => {
    const parsed = parseTime(text, NOW);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(message);
  });

  it('counts a duration from the anchor (the first run of a file), to the second', () => {
    const parsed = parseDuration('8h');
    expect(parsed.ok && expiresAt(parsed.value, NOW + 999)).toBe('2026-01-15T17:30:00Z');
  });
});

describe('fileRows', () => {
  it('resolves roles by id or name and fills in defaults from flags', async () => {
    const { rows, problems } = await validate(
      'user,role_id,expires_in,justification\nu1,fx-desk,,\nu2,role_0123456789abcdef01234567,1h,own\n',
      { defaults: { expiry: { kind: 'never' }, justification: 'flag' } },
    );
    expect(problems).toEqual([]);
    expect(
      rows.map((r) => [r.line, r.user, r.role.id, (r as GrantRow).expiresAt, (r as GrantRow).justification]),
    ).toEqual([
      [2, 'u1', 'role_0123456789abcdef01234567', null, 'flag'],
      [3, 'u2', 'role_0123456789abcdef01234567', '2026-01-15T10:30:00Z', 'own'],
    ]);
  });

  it('reports every problem of every row, in line order', async () => {
    const { rows, problems } = await validate(
      'user,role,expires_in,justification\n' +
        'a b,tenant_admn,soon,\n' +
        'u2,tenant_viewer,8h,ok\n' +
        'u2,tenant_viewer,8h,again\n' +
        `u3,org_admin,8h,${'x'.repeat(1001)}\n`,
    );
    expect(rows.map((r) => r.line)).toEqual([3]);
    expect(problems).toEqual([
      { line: 2, message: 'user "a b" is not a user id' },
      { line: 2, message: 'unknown role "tenant_admn" (did you mean tenant_admin?)' },
      {
        line: 2,
        message:
          'expires_in "soon" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
      },
      { line: 2, message: 'missing justification' },
      { line: 4, message: 'duplicate of line 3: u2 and tenant_viewer again' },
      { line: 5, message: 'org_admin is an organisation role; it cannot be granted in a tenant' },
      { line: 5, message: 'justification is longer than 1000 characters' },
    ]);
  });

  it('refuses a relative expiry that has passed since the first run started (a stale journal)', async () => {
    const { problems } = await validate('user,role,expires_in,justification\nu1,tenant_viewer,30m,x\n', {
      anchorMs: NOW - 3600_000,
      journal: { path: '/state/j.ndjson', done: () => false },
    });
    expect(problems).toEqual([
      {
        line: 2,
        message:
          'expires_in 30m, counted from the first run of this file at 2026-01-15T08:30:00Z, has passed; remove the journal /state/j.ndjson to start over',
      },
    ]);
  });

  it('leaves rows an earlier run finished (journaled) out of the "has passed" check', async () => {
    const csv =
      'user,role,expires_in,expires_at,justification\n' +
      'u1,tenant_viewer,30m,,x\nu2,tenant_viewer,,2026-01-15T09:00:00Z,x\nu3,tenant_admin,30m,,x\n';
    const { rows, problems } = await validate(csv, {
      anchorMs: NOW - 3600_000,
      journal: { path: '/state/j.ndjson', done: (line) => line !== 4 },
    });
    expect(rows.map((r) => r.user)).toEqual(['u1', 'u2']);
    expect(problems).toEqual([
      {
        line: 4,
        message:
          'expires_in 30m, counted from the first run of this file at 2026-01-15T08:30:00Z, has passed; remove the journal /state/j.ndjson to start over',
      },
    ]);
  });

  it.each([
    ['User,Role,Expires_In,Justification\nu1,tenant_viewer,7d,x\n'],
    ['USER,ROLE_ID,EXPIRES_IN,JUSTIFICATION\nu1,tenant_viewer,7d,x\n'],
  ])('matches column names without regard to case: %j', async (csv) => {
    const { rows, problems } = await validate(csv);
    expect(problems).toEqual([]);
    expect(rows).toMatchObject([{ user: 'u1', role: { id: 'tenant_viewer' }, justification: 'x' }]);
  });

  it.each([
    ['user;role;expires_in;justification\nu1;tenant_viewer;7d;x\n', 'a semicolon (;)'],
    ['User\tRole\tExpires_In\tJustification\nu1\ttenant_viewer\t7d\tx\n', 'a tab'],
  ])(
    'says a header whose columns are separated by something else than a comma is one: %j',
    async (csv, sep) => {
      const { rows, problems } = await validate(csv);
      expect(rows).toEqual([]);
      expect(problems).toEqual([
        {
          line: 1,
          message: `the header separates its columns with ${sep}; svc reads comma-separated files (user,role,expires_in,justification)`,
        },
      ]);
    },
  );

  it('needs only user and role to revoke, and ignores the grant columns', async () => {
    const { rows, problems } = await validate('user,role,expires_in,justification\nu1,tenant_viewer,,\n', {
      kind: 'revoke',
    });
    expect(problems).toEqual([]);
    expect(rows).toEqual([{ line: 2, user: 'u1', role: ROLES[1] }]);
  });
});

describe('suggestions', () => {
  it.each([
    ['tenant_admn', 'tenant_admin'],
    ['exception.reed', 'exception.read'],
    ['TENANT_VIEWER', 'tenant_viewer'],
    ['xyz', undefined],
  ])('%s → %s', (word, expected) => {
    expect(closest(word, ['tenant_admin', 'tenant_viewer', 'exception.read'])).toBe(expected);
  });
});

// words17 left it: a field that is not text was repeated whole (a JSON row's 100 KB map made a
// 100 KB "one-line" problem); it is repeated as its JSON text, bounded as quoted() bounds text.
describe('a field that is not text', () => {
  it('is named with its value bounded', async () => {
    const path = join(dir, 'f.ndjson');
    const big = { note: 'x'.repeat(5000) };
    const fields = { expires_in: '8h', justification: 'rota' };
    writeFileSync(
      path,
      `${JSON.stringify({ ...fields, user: 'usr_1', role: 7 })}\n${JSON.stringify({ ...fields, user: big, role: 'fx-desk' })}\n`,
    );
    const rules = { kind: 'assign' as const, roles: ROLES, defaults: {}, anchorMs: NOW, nowMs: NOW };
    const problems: string[] = [];
    for await (const event of fileRows(path, 'f.ndjson', rules, { duplicates: true })) {
      if ('problems' in event) problems.push(...event.problems.map((m) => `${event.line}: ${m}`));
    }
    expect(problems).toEqual([
      '1: role must be a string, got 7',
      `2: user must be a string, got {"note":"${'x'.repeat(51)}…${'x'.repeat(38)}"} (5011 characters)`,
    ]);
  });

  it('is named as the file writes it (attack27b F8: 12.50 was quoted as 12.5)', async () => {
    const path = join(dir, 'n.ndjson');
    writeFileSync(
      path,
      '{"user":"usr_1","role":"fx-desk","expires_in":"8h","justification":12.50}\n{"user":"usr_2","role":"fx-desk","expires_in":"8h","justification":{"a":[1.0]}}\n',
    );
    const rules = { kind: 'assign' as const, roles: ROLES, defaults: {}, anchorMs: NOW, nowMs: NOW };
    const problems: string[] = [];
    for await (const event of fileRows(path, 'n.ndjson', rules, { duplicates: true })) {
      if ('problems' in event) problems.push(...event.problems.map((m) => `${event.line}: ${m}`));
    }
    expect(problems).toEqual([
      '1: justification must be a string, got 12.50',
      '2: justification must be a string, got {"a":[1.0]}',
    ]);
  });
});

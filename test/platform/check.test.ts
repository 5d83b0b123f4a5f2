import { describe, expect, it } from 'vitest';
import { Role, RoleAssignmentList } from '../../src/api/schemas/roles.js';
import { TenantList } from '../../src/api/schemas/tenants.js';
import { describe as describeSchema, findMismatch, kindOf } from '../../src/platform/check.js';
import { SCHEMA_REFS } from '../../src/platform/schemas.js';

const role = {
  id: 'role_1',
  name: 'fx-desk',
  description: '',
  kind: 'custom',
  scope: 'tenant',
  permissions: ['exception.read'],
  tenant_id: 't1',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  created_by: 'usr_admin',
  deleted_at: null,
};
const tenant = {
  id: '6d1f0c1e-0000-4000-8000-000000000001',
  slug: 'acme',
  display_name: 'Acme',
  default_currency: 'EUR',
  time_zone: 'Europe/Paris',
  role: 'tenant_admin',
  created_at: '2026-01-01T00:00:00Z',
  subscription_tier: 'pro',
};
const { deleted_at: _deleted, ...roleWithoutDeletedAt } = role;
const { id: _id, ...roleWithoutId } = role;

describe('the boundary check', () => {
  it.each([
    ['a whole role', Role, role],
    ['unknown fields (servers add fields)', Role, { ...role, color: 'blue', labels: { a: 1 } }],
    ['an enum value svc does not know yet', Role, { ...role, kind: 'inherited' }],
    ['a nullable field left out (absent is null)', Role, roleWithoutDeletedAt],
    ['a nullable field set', Role, { ...role, deleted_at: '2026-02-01T00:00:00Z' }],
    ['a page of $refs', TenantList, { items: [tenant, tenant], next_cursor: null }],
    ['a last page without next_cursor', TenantList, { items: [tenant] }],
  ])('accepts %s', (_what, schema, value) => {
    expect(findMismatch(schema, value, SCHEMA_REFS)).toBeUndefined();
  });

  it.each([
    ['a missing required field', Role, roleWithoutId, { path: 'id', expected: 'string', found: undefined }],
    ['a mistyped field', Role, { ...role, id: 7 }, { path: 'id', expected: 'string', found: 'an integer' }],
    [
      'a string where an array belongs',
      Role,
      { ...role, permissions: 'exception.read' },
      { path: 'permissions', expected: 'array', found: 'a string' },
    ],
    [
      'a mistyped array element',
      Role,
      { ...role, permissions: ['a.b', 3] },
      { path: 'permissions[1]', expected: 'string', found: 'an integer' },
    ],
    [
      'a mistyped nullable field',
      Role,
      { ...role, deleted_at: 5 },
      { path: 'deleted_at', expected: 'string or null', found: 'an integer' },
    ],
    [
      'a null where null is not allowed',
      Role,
      { ...role, name: null },
      { path: 'name', expected: 'string', found: 'null' },
    ],
    [
      'an item of a page, through $ref',
      TenantList,
      { items: [tenant, { ...tenant, slug: undefined }], next_cursor: null },
      { path: 'items[1].slug', expected: 'string', found: undefined },
    ],
    [
      'a page without items',
      TenantList,
      { next_cursor: null },
      { path: 'items', expected: 'array', found: undefined },
    ],
    [
      'a cursor of the wrong type',
      TenantList,
      { items: [], next_cursor: 12 },
      { path: 'next_cursor', expected: 'null or string', found: 'an integer' },
    ],
    ['an answer that is not an object', Role, [role], { path: '', expected: 'object', found: 'an array' }],
    ['an empty answer', Role, undefined, { path: '', expected: 'object', found: 'nothing' }],
    [
      'a Type.Null cursor given a string',
      RoleAssignmentList,
      { items: [], next_cursor: 'more' },
      { path: 'next_cursor', expected: 'null', found: 'a string' },
    ],
  ])('refuses %s', (_what, schema, value, expected) => {
    expect(findMismatch(schema, value, SCHEMA_REFS)).toEqual(expected);
  });

  it('names what it expects and what it found in words', () => {
    expect(describeSchema({ anyOf: [{ type: 'integer' }, { type: 'null' }] }, SCHEMA_REFS)).toBe(
      'integer or null',
    );
    expect(describeSchema({ $ref: 'Role' }, SCHEMA_REFS)).toBe('object');
    expect([null, [], 1, 1.5, 'x', true, {}, undefined].map(kindOf)).toEqual([
      'null',
      'an array',
      'an integer',
      'a number',
      'a string',
      'a boolean',
      'an object',
      'nothing',
    ]);
  });

  it('fails loudly on a reference no schema answers to (a bug in svc, not in the server)', () => {
    expect(() => findMismatch({ $ref: 'Nope' }, {}, SCHEMA_REFS)).toThrow(/Nope is not registered/);
  });
});

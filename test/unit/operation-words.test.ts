import { describe, expect, it } from 'vitest';
import { actionOf } from '../../src/api/operation-words.js';
import { OPERATIONS } from '../../src/api/operations.js';

// Exploratory test s8 (newuser L2): 403s named internal operation ids (`roles_get needs …`).
// Every operation of the table has words, and none of them is an operation id.
describe('actionOf', () => {
  it('says every operation in words', () => {
    const ids = Object.keys(OPERATIONS);
    const said = ids.map((id) => actionOf(id));
    expect(
      said.filter((words, i) => words === ids[i] || /_/.test(words.replace(/[a-z]+_[a-z]+\.[a-z]+/g, ''))),
    ).toEqual([]);
    expect(new Set(said).size).toBe(ids.length);
  });

  it('says the ones the newcomer met', () => {
    expect(
      ['roles_get', 'roles_list', 'user_roles_revoke', 'audit_trail_list', 'evidence_packs_get'].map(
        actionOf,
      ),
    ).toEqual([
      'reading a role',
      'listing roles',
      'revoking roles',
      'reading the audit trail',
      'reading an evidence pack',
    ]);
  });

  it('falls back to the id of an operation it does not know', () => {
    expect(actionOf('frobs_list')).toBe('frobs_list');
  });
});

/**
 * fix-store17 #1/#2: group-writable is writable by nobody else when the group's only member is the
 * owner (a user private group under umask 002: `~/.config` 0775 on Debian, Ubuntu, Fedora), as
 * Debian's ssh judges StrictModes; any other member, or a group not found, is someone else.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyMemberIsOwner } from '../../src/config/private-group.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = { passwd: join(dir, 'passwd'), group: join(dir, 'group') };
writeFileSync(
  files.passwd,
  [
    'root:x:0:0:root:/root:/bin/bash',
    'alice:x:1000:1000::/home/alice:/bin/bash',
    'bob:x:1001:1001::/home/bob:/bin/bash',
    'carol:x:1002:1001::/home/carol:/bin/bash',
    'svc:x:1003:1003::/home/svc:/bin/sh',
  ].join('\n'),
);
writeFileSync(
  files.group,
  [
    'root:x:0:',
    'alice:x:1000:',
    'bob:x:1001:',
    'svc:x:1003:alice',
    'team:x:2000:alice,bob',
    'empty:x:2001:',
    'solo:x:2002:alice',
  ].join('\n'),
);

describe('a group whose only member is the owner', () => {
  it.each([
    ['alice’s private group', 1000, 1000, true],
    ['a group listing only its owner', 2002, 1000, true],
    ['the private group of someone else', 1000, 1001, false],
    ['a primary group two users share', 1001, 1001, false],
    ['a group that also lists another user', 1003, 1003, false],
    ['a team group', 2000, 1000, false],
    ['a group with no member at all', 2001, 1000, false],
    ['a group not in the file', 4242, 1000, false],
  ])('%s: %s', (_what, gid, owner, only) => {
    expect(onlyMemberIsOwner(gid, owner, files)).toBe(only);
  });

  it('is no one’s when the files cannot be read', () => {
    expect(onlyMemberIsOwner(1000, 1000, { passwd: join(dir, 'none'), group: join(dir, 'none') })).toBe(
      false,
    );
  });
});

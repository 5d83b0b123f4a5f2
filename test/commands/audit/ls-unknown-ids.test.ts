/**
 * brief paging22 4: `audit ls --actor X` said nothing when X is no user of the tenant (a typo read
 * as an actor who changed nothing), while `--user` says so (lookForUser); and `audit ls --role R`
 * lacked the refusal of an invisible character every other id flag has (attack21b F7).
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const auditor = () => ({ env: { SVC_TOKEN: svc.sandbox().issueToken('usr_auditor').token } });
const Z = '\u200b';

describe('audit ls --role with an invisible character', () => {
  const refused =
    'error: --role "tenant_\\u200bviewer" holds an invisible character (U+200B ZERO WIDTH SPACE) at 8: type the id again, or delete that character\n';

  it.each([
    ['a tenant_admin', () => ({})],
    ['a tenant_auditor (no role.read)', auditor],
  ])('is refused with it escaped, exit 2, as %s', async (_who, as) => {
    const r = await svc.run(['audit', 'ls', '--role', `tenant_${Z}viewer`], as());
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', refused]);
  });
});

describe('audit ls --actor with an id that is no user of the tenant', () => {
  const look = 'see `svc users ls` for the users of the tenant (`svc users ls --id ID` checks an id)';
  const other = ' (an actor may also be an API key or an OAuth client, by an id svc did not look up)';

  it('says so when nothing matched, exit 0, as --user does', async () => {
    const typo = await svc.run(['audit', 'ls', '--actor', 'usr_admn']);
    expect(typo).toEqual({
      code: 0,
      stdout: '',
      stderr: `warning: no entries, and usr_admn is not a user of this tenant${other}; ${look}\n`,
    });
    // A user of the tenant who changed nothing in the window: nothing to say but the empty answer.
    const quiet = await svc.run(['audit', 'ls', '--actor', 'usr_admin', '--until', '2001-01-01T00:00:00Z']);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
    // Both flags: one lookup, a note for each id that is no user.
    const both = await svc.run(['audit', 'ls', '--actor', 'usr_admn', '--user', 'usr_lead']);
    expect(both).toEqual(typo);
  });

  it('a caller who may not list users is told the id went unchecked', async () => {
    const r = await svc.run(['audit', 'ls', '--actor', 'usr_admn'], auditor());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `warning: no entries, and svc could not check that usr_admn is a user of this tenant (listing users needs role.read)${other}; check the id\n`,
    ]);
  });
});

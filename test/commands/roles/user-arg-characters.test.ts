// A USER holding a control or invisible character is refused before any request — not after the
// role's two GETs — and a leading tab is refused, never trimmed away unsaid (attack27a F6).
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('roles assign / revoke USER with a character no id holds', () => {
  it.each([
    [
      'never\u0007',
      'error: USER "never\\u0007" holds a control character (U+0007) at 6: type the id again; svc did not send it\n',
    ],
    [
      '\tusr_viewer',
      'error: USER "\\tusr_viewer" holds a control character (U+0009) at 1: type the id again; svc did not send it\n',
    ],
    [
      'usr_\u200bviewer',
      'error: USER "usr_\\u200bviewer" holds an invisible character (U+200B ZERO WIDTH SPACE) at 5: type the id again, or delete that character\n',
    ],
  ])('%j: exit 2, nothing sent', async (user, stderr) => {
    for (const argv of [
      ['roles', 'assign', user, 'tenant_viewer', '--expires-in', '1h', '--justification', 'quarter close'],
      ['roles', 'revoke', user, 'tenant_viewer', '--yes'],
    ]) {
      const before = await requestCount(svc.sandbox());
      const r = await svc.run(argv);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', stderr]);
      expect(await requestCount(svc.sandbox())).toBe(before);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// Finding M5 (review-c, s11): `roles update` that changed nothing said "nothing changed", exit 0,
// of a deleted or built-in role, which the platform refuses any update of (409 role_deleted,
// 403 builtin_role_immutable). svc no longer answers for the platform there.
const svc = useSandboxContext();

describe('roles update of a role the platform will not change', () => {
  it('a deleted role is refused (exit 6) even when the update changes nothing', async () => {
    const created = await svc.run([
      'roles',
      'create',
      '--name',
      'gone-x',
      '--permission',
      'exception.read',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    expect((await svc.run(['roles', 'delete', id, '--yes'])).code).toBe(0);
    for (const flags of [
      ['--description', ''],
      ['--add-permission', 'exception.read'],
      ['--name', 'gone-x'],
    ]) {
      const result = await svc.run(['roles', 'update', id, ...flags]);
      expect(result.code, result.stderr).toBe(6);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^error: role gone-x \\(${id}\\) was deleted at .*role_deleted`),
      );
      expect(result.stderr).not.toContain('nothing changed');
    }
  });

  it('a built-in role is refused (exit 4) even when it already has the permission', async () => {
    const role = await svc.run(['roles', 'get', 'tenant_viewer', '--json']);
    const held = (JSON.parse(role.stdout).permissions as string[])[0] as string;
    const result = await svc.run(['roles', 'update', 'tenant_viewer', '--add-permission', held]);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: tenant_viewer is a built-in role; .*builtin_role_immutable/);
  });
});

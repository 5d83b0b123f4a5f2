/** Words after `--` are operands, not options: they do not switch the output mode. In-process. */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

describe('after --', () => {
  it.each(['--json', '--ndjson'])('roles get -- %s: the error is text, as the command is', async (word) => {
    const result = await svc.run(['roles', 'get', '--', word]);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^error: no role "${word}" in this tenant \\(HTTP 404, not_found\\); [^\\n]*\\n$`),
    );
  });

  it('--json before -- still makes the error JSON', async () => {
    const result = await svc.run(['roles', 'get', '--json', '--', '--json']);
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'not_found', exit_code: 5 } });
  });
});

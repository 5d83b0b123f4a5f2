/**
 * attack21b F6: an access document on standard input cut short by what writes it
 * (`(head -c -10 access.yaml; exit 1) | svc apply -f - --yes`) was applied: YAML's last scalar
 * needs no line ending, so `role: ops-readonly` cut to `role: ops` granted a role with
 * exception.write, ✓, exit 0. The rule of a grant CSV on a pipe (session 20) now holds for access
 * files: one through a pipe whose last line has no line ending is refused (exit 2), nothing read
 * from the platform or sent; a regular file (named or redirected) is taken as it is, and so is a
 * JSON document, which does not parse once cut.
 */
import { describe, expect, it } from 'vitest';
import { APAC, as, writeFile, writes } from '../helpers/ascode.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { bash } from '../helpers/svc.js';
import { tempDir } from '../helpers/temp.js';

const svc = useSandboxContext({ users: 3 }, { tenant: false });
const FILE = `version: 1
blocks:
  - tenants: acme-apac
    grants:
      - justification: cut
        expires_in: 8h
        users: [usr_bulk_000001]
        role: ops-readonly
`;
const CUT = FILE.slice(0, -10);
// The sandbox's clock is real: expires_in counts from it without a word.
const real = { clock: { now: () => Date.now() } };
const PLANNED = 'plan: 1 to create, 0 to update, 0 to delete in 1 of 1 tenant\n';
const WORDS =
  'standard input ends in this line, with no line ending after it: was what writes it cut short? A line cut short can name another user or role; if the input is whole, end it with a newline (`(your-command; echo) | svc …`) or give it as a file';

let made = false;
async function roles() {
  if (made) return;
  made = true;
  await as(svc.sandbox(), APAC, 'POST', '/v1/roles', {
    name: 'ops',
    permissions: ['exception.read', 'exception.write'],
  });
  await as(svc.sandbox(), APAC, 'POST', '/v1/roles', {
    name: 'ops-readonly',
    permissions: ['exception.read'],
  });
}

describe('an access file on standard input whose last line has no line ending', () => {
  it.each([
    ['apply -f - --yes', ['apply', '-f', '-', '--yes']],
    ['plan -f -', ['plan', '-f', '-']],
  ])('%s refuses it, naming the line; nothing is read or granted', async (_name, argv) => {
    await roles();
    const before = await writes(svc.sandbox());
    const r = await svc.run(argv, { stdin: CUT });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `stdin:8: ${WORDS}\nerror: 1 problem in stdin; nothing was read from the platform; fix them and run the command again\n`,
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('a whole document on stdin, and a JSON one without a final newline, are planned', async () => {
    await roles();
    const whole = await svc.run(['plan', '-f', '-'], { ...real, stdin: FILE });
    expect([whole.code, whole.stderr]).toEqual([10, PLANNED]);
    const json = JSON.stringify({
      version: 1,
      blocks: [
        {
          tenants: 'acme-apac',
          grants: [
            { justification: 'j', expires_in: '8h', users: ['usr_bulk_000001'], role: 'ops-readonly' },
          ],
        },
      ],
    });
    const piped = await svc.run(['plan', '-f', '-'], { ...real, stdin: json });
    expect([piped.code, piped.stderr]).toEqual([10, PLANNED]);
    const cutJson = await svc.run(['plan', '-f', '-'], { stdin: json.slice(0, -3) });
    expect([cutJson.code, cutJson.stderr.split('\n')[0]]).toEqual([2, `stdin:1: ${WORDS}`]);
  });

  it('a file redirected or named is taken; a pipe named as a file (/dev/stdin) is refused', async () => {
    await roles();
    const path = writeFile(tempDir('svc-cut-'), 'cut.yaml', CUT);
    const env = svc.env();
    const named = await svc.run(['plan', '-f', path], real);
    // Taken as it stands (a hand-edited file): its cut role is the file's word, planned.
    expect(named.code, named.stderr).toBe(10);
    const redirected = await bash(`svc plan -f - < '${path}'`, { env });
    expect(redirected.code, redirected.stderr).toBe(10);
    const json = writeFile(
      tempDir('svc-cut-'),
      'whole.json',
      `{"version": 1, "blocks": [{"tenants": "acme-apac", "grants": [{"justification": "j", "expires_in": "8h", "users": ["usr_bulk_000001"], "role": "ops-readonly"}]}]}`,
    );
    const jsonPipe = await bash(`cat '${json}' | svc plan -f /dev/stdin`, { env });
    expect(jsonPipe.code, jsonPipe.stderr).toBe(10);
    const devStdin = await bash(`cat '${path}' | svc plan -f /dev/stdin`, { env });
    expect([devStdin.code, devStdin.stderr.split('\n')[0]]).toEqual([
      2,
      `/dev/stdin:8: ${WORDS.replace('standard input', 'the pipe /dev/stdin')}`,
    ]);
  });
});

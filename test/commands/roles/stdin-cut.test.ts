/**
 * attack20 F6: CSV on standard input cut mid-line by a failing producer (`(head -c -6 full.csv;
 * exit 1) | svc roles assign --file -`) was granted as it stands: a last field cut short can name
 * another live role or user (`fx-desk` cut to `fx`), and svc cannot see the producer's exit. What it
 * can see is that the input ends in the middle of a line: every program that writes CSV to a pipe
 * ends its last line. Such a CSV on stdin is refused (exit 2), naming the line, before anything is
 * sent; a named file without a final newline (hand-edited) is taken, and so is NDJSON (a cut line
 * is not valid JSON, so it cannot pass for another row).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, posts } from '../../helpers/bulk.js';
import { runInProcess } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { bash } from '../../helpers/svc.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const route = '/v1/users/:id/roles';

describe('CSV on standard input whose last line has no line ending', () => {
  it('is refused, naming the line; nothing is granted (the cut row named another role)', async () => {
    await customRole(sandbox(), 'fx');
    await customRole(sandbox(), 'fx-desk');
    const full = `justification,expires_in,user,role\ncut test,8h,${bulkUser(1)},fx-desk\ncut test,8h,${bulkUser(2)},fx-desk\n`;
    const before = await posts(sandbox(), route);
    for (const flags of [[], ['--dry-run']]) {
      const r = await svc.run(['roles', 'assign', '--file', '-', ...flags], { stdin: full.slice(0, -6) });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        'stdin:3: standard input ends in this row, with no line ending after it: was what writes it cut short? A row cut short can name another user or role; if the input is whole, end it with a newline (`(your-command; echo) | svc …`) or give it as a file\n' +
          'error: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n',
      ]);
    }
    expect(await posts(sandbox(), route)).toBe(before);
  });

  it('a named file without a final newline, and NDJSON on stdin without one, are taken', async () => {
    await customRole(sandbox(), 'nl-ok');
    const path = svc.file('no-newline.csv', `user,role,expires_in,justification\n${bulkUser(3)},nl-ok,8h,t`);
    const named = await svc.run(['roles', 'assign', '--file', path, '--dry-run']);
    expect(named.code).toBe(0);
    const ndjson = `{"user":"${bulkUser(4)}","role":"nl-ok","expires_in":"8h","justification":"t"}`;
    const piped = await svc.run(['roles', 'assign', '--file', '-', '--dry-run'], { stdin: ndjson });
    expect(piped.code).toBe(0);
  });

  // review20b F1, F2: only a pipe is suspect. A regular file redirected (`< f.csv`, a generator's
  // `join('\n')`, RFC 4180 allows it) was refused; the same cut input as `/dev/stdin` of a pipe or
  // `<(…)` was granted; a last line of separators alone (an empty spreadsheet row) is no row.
  it('a file redirected is taken, a pipe named as a file is refused, an unended empty row is no row', async () => {
    await customRole(sandbox(), 'nl-redirect');
    const rows = `user,role,expires_in,justification\n${bulkUser(5)},nl-redirect,8h,t`;
    const path = svc.file('redirected.csv', rows);
    const env = svc.env();
    const redirected = await bash(`svc roles assign --file - --dry-run < '${path}'`, { env });
    expect([redirected.code, redirected.stderr]).toEqual([
      0,
      'dry run: 1 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
    const named = await bash(`cat '${path}' | svc roles assign --file /dev/stdin --dry-run`, { env });
    expect([named.code, named.stderr.split('\n')[0]]).toEqual([
      2,
      '/dev/stdin:2: the pipe /dev/stdin ends in this row, with no line ending after it: was what writes it cut short? A row cut short can name another user or role; if the input is whole, end it with a newline (`(your-command; echo) | svc …`) or give it as a file',
    ]);
    const empty = await svc.run(['roles', 'assign', '--file', '-', '--dry-run'], { stdin: `${rows}\n,,,` });
    expect(empty.code, empty.stderr).toBe(0);
  });
});

// review20d D6: Ctrl-C while the rows were still coming (a paste, a slow producer) did nothing
// until standard input ended.
describe('Ctrl-C while standard input is still being read', () => {
  it('ends the run at once: exit 130, one line, nothing sent', async () => {
    const stdin = new PassThrough();
    stdin.write('user,role,expires_in,justification\n');
    const stop = new AbortController();
    const before = await posts(sandbox(), route);
    setTimeout(() => stop.abort(), 200);
    const r = await runInProcess(['roles', 'assign', '--file', '-'], svc.env(), {
      stdin,
      signal: stop.signal,
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      130,
      '',
      'error: interrupted while reading standard input; nothing was sent\n',
    ]);
    expect(await posts(sandbox(), route)).toBe(before);
  });
});

/**
 * A value a refusal repeats is bounded (quoted(), src/output/format.ts: whole up to 200
 * characters, else its start, its end and its length), whichever flag it came in: a 10 KB value
 * echoed whole made a "one-line" error a pipe could cut short. Refused before any request.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

const shown = (start: string, end: string, length: number) => `"${start}…${end}" (${length} characters)`;

describe('a long bad value is echoed bounded', () => {
  it.each<[string, string[], string]>([
    [
      '--permission',
      ['roles', 'create', '--name', 'r', '--permission', `A${'b'.repeat(9999)}`],
      `error: --permission ${shown(`A${'b'.repeat(59)}`, 'b'.repeat(40), 10000)} is not a permission: use a dotted lowercase identifier such as exception.read or rule.write.fx`,
    ],
    [
      '--event-type',
      ['webhooks', 'create', '--url', 'https://h.example.com/x', '--event-type', `X${'y'.repeat(9999)}`],
      `error: --event-type ${shown(`X${'y'.repeat(59)}`, 'y'.repeat(40), 10000)} is not an event kind (e.g. exception.sla.breached)`,
    ],
    [
      '--since, too far back',
      ['audit', 'ls', '--since', `${'9'.repeat(9999)}d`],
      `error: --since ${shown('9'.repeat(60), `${'9'.repeat(39)}d`, 10000)} is too far back; give a duration up to 36500d (100 years), or an ISO 8601 time`,
    ],
    [
      'an id a table shortened',
      ['roles', 'get', `role_${'c'.repeat(9994)}…`],
      `error: ROLE ${shown(`role_${'c'.repeat(55)}`, `${'c'.repeat(39)}…`, 10000)} is an id shortened to fit a table; list again with --wide (or --json, or in a pipe) to see ids whole`,
    ],
  ])('%s', async (_what, argv, stderr) => {
    const r = await runInProcess(argv, {
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_TOKEN: 'svc_pk_test_0123456789',
      SVC_TENANT: 'acme',
    });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `${stderr}\n` });
  });
});

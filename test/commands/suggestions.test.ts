/** commander's "Did you mean" for unknown options and commands, ranked by svc's rule. In-process. */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

describe('did you mean, for an unknown option or command', () => {
  it.each<[string[], string]>([
    [
      ['webhooks', 'create', '--url', 'https://x.example/h', '--event', 'exception.created'],
      "error: unknown option '--event' (Did you mean --event-type?); see `svc webhooks create --help`\n",
    ],
    [
      ['tenants', 'ls', '--tie', 'pro'],
      "error: unknown option '--tie' (Did you mean --tier?); see `svc tenants ls --help`\n",
    ],
    // a typo that begins nothing keeps commander's own guess
    [
      ['tenants', 'ls', '--teir', 'pro'],
      "error: unknown option '--teir' (Did you mean --tier?); see `svc tenants ls --help`\n",
    ],
    [
      ['roles', 'perm'],
      "error: unknown command 'perm' (Did you mean permissions?); see `svc roles --help`\n",
    ],
    [['roles', 'holde'], "error: unknown command 'holde' (Did you mean holders?); see `svc roles --help`\n"],
  ])('svc %j', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });
});

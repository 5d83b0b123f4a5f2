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
    // the command's own option before a global one that begins the same (--allow-insecure-http)
    [
      ['export', '--all'],
      "error: unknown option '--all' (Did you mean --all-tenants?); see `svc export --help`\n",
    ],
    // --base-url is global: --builtin is the one of roles ls's own options that --b begins
    [
      ['roles', 'ls', '--b'],
      "error: unknown option '--b' (Did you mean --builtin?); see `svc roles ls --help`\n",
    ],
    // after its dashes, one letter begins a long option
    [
      ['tenants', 'ls', '--r'],
      "error: unknown option '--r' (Did you mean --role?); see `svc tenants ls --help`\n",
    ],
    // a command and its alias (webhooks, webhook) are one candidate
    [['web', 'ls'], "error: unknown command 'web' (Did you mean webhooks?); see `svc --help`\n"],
    [['help', 'web'], "error: unknown command 'web' (Did you mean webhooks?); see `svc --help`\n"],
    // several of the command's own options begin with it (--description, --disabled): no guess,
    // and none from the global ones (--debug)
    [['webhooks', 'create', '--d'], "error: unknown option '--d'; see `svc webhooks create --help`\n"],
    // an unknown command near none: no guess (commander's said "oauth" for "nosuch"), and a
    // command and its alias are one suggestion (commander's said "one of role, roles")
    [['nosuch'], "error: unknown command 'nosuch'; see `svc --help`\n"],
    [['rolse'], "error: unknown command 'rolse' (Did you mean roles?); see `svc --help`\n"],
  ])('svc %j', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });
});

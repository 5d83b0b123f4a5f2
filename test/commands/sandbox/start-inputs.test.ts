// Just past 300 lines: every input `sandbox start` refuses or says something of (--host, -p,
// --seed none, --retry-after), each with the one started-sandbox helper below.
/**
 * `svc sandbox start` with a --host or -p it cannot honour: refused in one line, exit 2, before
 * the sandbox starts and before any profile is written. A wildcard bind saves (and prints) a URL
 * a client can connect to, and --seed none says that it has no admin token.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, scriptedPrompter, startInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs('svc-sandbox-inputs-');

const files = (env: Record<string, string>) => {
  const read = (name: string) => {
    try {
      return readFileSync(join(env.SVC_CONFIG_DIR!, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  return { config: read('config.json'), credentials: read('credentials.json') };
};

/** Starts the sandbox, waits for its Try line, and gives the run (to interrupt) and its stdout. */
async function started(argv: string[], env: Record<string, string>, options = {}) {
  const run = startInProcess(['sandbox', 'start', '--port', '0', ...argv], env, options);
  const deadline = Date.now() + 15_000;
  while (!/Ctrl-C stops the sandbox/.test(run.stdout())) {
    if (run.ended() || Date.now() > deadline) throw new Error(`not started:\n${run.stdout()}${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return run;
}

describe('svc sandbox start --host', () => {
  it.each([
    ['', /^error: --host needs an address, e.g\. 127\.0\.0\.1 \(or 0\.0\.0\.0 for every interface\)\n$/],
    [
      '127.0.0.1 ',
      /^error: --host "127\.0\.0\.1 " is not a host name or IP address; for example 127\.0\.0\.1 \(or 0\.0\.0\.0 for every interface\)\n$/,
    ],
    [
      'http://127.0.0.1',
      /^error: --host "http:\/\/127\.0\.0\.1" is not a host name or IP address; for example 127\.0\.0\.1/,
    ],
  ])(
    'refuses %j before anything is written (the profile a previous run saved stays)',
    async (host, message) => {
      const env = dirs();
      const first = await started([], env);
      first.interrupt();
      expect((await first.done).code).toBe(0);
      const before = files(env);
      const result = await runInProcess(['sandbox', 'start', '--port', '0', '--host', host], env);
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(files(env)).toEqual(before);
    },
  );

  it('says a host that does not resolve is bad input (exit 2), naming it and the fix', async () => {
    const env = dirs();
    const result = await runInProcess(['sandbox', 'start', '--port', '0', '--host', 'nope.invalid'], env);
    expect(result.stderr).toBe(
      'error: --host nope.invalid does not resolve to an address; use 127.0.0.1, or 0.0.0.0 for every interface\n',
    );
    expect(result.code).toBe(2);
    expect(files(env)).toEqual({ config: undefined, credentials: undefined });
  });

  it('says an address that is not this machine is bad input (exit 2), in --json too', async () => {
    const env = dirs();
    const result = await runInProcess(
      ['sandbox', 'start', '--port', '0', '--host', '192.0.2.1', '--json', '--no-save-profile'],
      env,
    );
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: 'usage',
        message: '--host 192.0.2.1 is not an address of this machine',
        hint: 'use 127.0.0.1, or 0.0.0.0 for every interface',
        exit_code: 2,
      },
    });
    expect(result.code).toBe(2);
  });

  it('says a port in use is bad input (exit 2), with the fix', async () => {
    const env = dirs();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const result = await runInProcess(['sandbox', 'start', '--port', String(port)], env);
      expect(result.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use; stop the other server, or pass --port 0 for a free port\n`,
      );
      expect(result.code).toBe(2);
      expect(files(env)).toEqual({ config: undefined, credentials: undefined });
    } finally {
      taken.close();
    }
  });

  it.each([
    ['0.0.0.0', 'http://127.0.0.1:'],
    ['::', 'http://[::1]:'],
  ])('--host %s saves and prints a loopback URL, and the Try line works as typed', async (host, url) => {
    const env = dirs();
    const run = await started(['--host', host], env);
    try {
      expect(run.stdout()).toContain(`svc sandbox listening on ${url}`);
      expect(run.stdout()).toContain(`(every interface: --host ${host})`);
      expect(run.stderr()).toContain(
        `warning: --host ${host} is not loopback: anyone who can reach it can mint sandbox tokens`,
      );
      expect(/^Try `svc tenants ls`/m.test(run.stdout())).toBe(true);
      const config = JSON.parse(files(env).config!);
      expect(config.profiles.sandbox.base_url.startsWith(url)).toBe(true);
      const tenants = await runInProcess(['tenants', 'ls'], env);
      expect(tenants.stderr).toBe('');
      expect(tenants.code).toBe(0);
    } finally {
      run.interrupt();
      await run.done;
    }
  });
});

// Review s11 d: the note and the warning follow the address the system bound, not --host's spelling.
describe('svc sandbox start --host, another spelling of a loopback address', () => {
  it.each(['127.1', 'LOCALHOST', '127.0.0.2', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    '--host %s: no "every interface" note, no "not loopback" warning, and a URL svc takes',
    async (host) => {
      const env = dirs();
      const run = await started(['--host', host], env);
      try {
        expect(run.stdout()).toMatch(/^svc sandbox listening on http:\/\/\S+:\d+\n/);
        expect(run.stdout()).not.toContain('every interface');
        expect(run.stderr()).not.toContain('is not loopback');
        expect((await runInProcess(['tenants', 'ls'], env)).code).toBe(0);
      } finally {
        run.interrupt();
        await run.done;
      }
    },
  );

  // A sandbox on an address of this machine that is not loopback, started again with the same
  // --host: the profile the first run wrote is its own, not another platform's.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  it.skipIf(external === undefined)(
    'a second run on the same --host replaces the profile the first one wrote, without asking',
    async () => {
      const env = dirs();
      for (const round of [1, 2]) {
        const run = await started(['--host', external!], env);
        try {
          expect([round, run.stderr()]).toEqual([
            round,
            `warning: --host ${external} is not loopback: anyone who can reach it can mint sandbox tokens\n`,
          ]);
        } finally {
          run.interrupt();
          await run.done;
        }
      }
    },
  );
});

describe('svc -p NAME sandbox start, when NAME is the profile of another platform', () => {
  const prodCredential = {
    type: 'oauth',
    access_token: 'prod_access_AAAAAAAAAAAAAAAA',
    refresh_token: 'prod_refresh_BBBBBBBBBBBBBBBB',
    expires_at: '2030-01-01T00:00:00Z',
    origin: 'https://api.example.com',
    session: 'ses_1',
    obtained_at: '2026-11-24T00:00:00Z',
  };

  async function prod(withLogin: boolean) {
    const env = dirs();
    expect(
      (await runInProcess(['-p', 'prod', 'config', 'set', 'base_url', 'https://api.example.com'], env)).code,
    ).toBe(0);
    if (withLogin) {
      writeFileSync(
        join(env.SVC_CONFIG_DIR, 'credentials.json'),
        JSON.stringify({ profiles: { prod: prodCredential } }),
        { mode: 0o600 },
      );
    }
    return env;
  }

  it.each([true, false])(
    'refuses without --yes (login stored: %s), before starting, changing nothing',
    async (login) => {
      const env = await prod(login);
      const before = files(env);
      const result = await runInProcess(['-p', 'prod', 'sandbox', 'start', '--port', '0'], env);
      expect(result.stderr).toBe(
        `error: profile "prod" points at https://api.example.com${login ? ' and holds a login there' : ''}; ` +
          `pick another -p NAME for the sandbox, or pass --yes to replace it${login ? ' (its login is not revoked: `svc -p prod logout` first)' : ''}\n`,
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(files(env)).toEqual(before);
    },
  );

  it.each([true, false])(
    'asks on a terminal (login stored: %s; the question speaks of one only then), and a "no" changes nothing, exit 2',
    async (login) => {
      const env = await prod(login);
      const before = files(env);
      const prompter = scriptedPrompter([false]);
      const result = await runInProcess(['-p', 'prod', 'sandbox', 'start', '--port', '0'], env, {
        tty: true,
        prompter,
      });
      expect(prompter.questions).toEqual([
        login
          ? 'The profile "prod" points at https://api.example.com and holds a login there. Replace it with the sandbox (that login is not revoked)?'
          : 'The profile "prod" points at https://api.example.com. Replace it with the sandbox?',
      ]);
      expect(result.stderr).toBe('error: cancelled; nothing was changed\n');
      expect(result.code).toBe(2);
      expect(files(env)).toEqual(before);
    },
  );

  it('replaces it with --yes, and says the login was not revoked', async () => {
    const env = await prod(true);
    const run = await started(['-p', 'prod', '--yes'], env);
    run.interrupt();
    await run.done;
    expect(run.stderr()).toContain(
      'warning: profile "prod" pointed at https://api.example.com; its login there was not revoked',
    );
    expect(JSON.parse(files(env).config!).profiles.prod.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('replaces one whose base_url holds a password without showing it (review26a M3)', async () => {
    const env = dirs();
    mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(env.SVC_CONFIG_DIR, 'config.json'),
      JSON.stringify({ profiles: { prod: { base_url: 'https://admin:SECRETPW9@api.example.com' } } }),
      { mode: 0o600 },
    );
    const run = await started(['-p', 'prod', '--yes'], env);
    run.interrupt();
    await run.done;
    expect(run.stderr()).toContain(
      'warning: profile "prod" pointed at https://[redacted]:[redacted]@api.example.com\n',
    );
    expect(run.stderr()).not.toContain('SECRETPW9');
    expect(run.stdout()).not.toContain('SECRETPW9');
  });

  it('repoints a profile an earlier sandbox saved (a loopback URL) without asking', async () => {
    const env = dirs();
    const first = await started(['-p', 'local'], env);
    first.interrupt();
    await first.done;
    const second = await started(['-p', 'local'], env);
    second.interrupt();
    expect((await second.done).code).toBe(0);
    expect(second.stderr()).not.toContain('warning');
  });
});

describe('svc sandbox start --seed none', () => {
  it('says there is no admin token (and null in --json), not an empty line', async () => {
    const env = dirs();
    const run = await started(['--seed', 'none'], env);
    run.interrupt();
    await run.done;
    expect(run.stdout()).toMatch(
      /^ {2}admin token {2}none: --seed none makes no users; restart without it for an admin$/m,
    );
    const json = startInProcess(['sandbox', 'start', '--port', '0', '--seed', 'none', '--json'], env);
    const deadline = Date.now() + 15_000;
    while (!json.stdout().includes('}') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    json.interrupt();
    await json.done;
    expect(JSON.parse(json.stdout()).admin_token).toBeNull();
  });

  // attack18a F8: no profile is written either; said at start, and the next command's hint does
  // not send the user back to the command already running.
  it('says no profile was written, and how to reach it; the next command does not say "run svc sandbox start"', async () => {
    const env = dirs();
    const run = await started(['--seed', 'none'], env);
    const url = /listening on (\S+)/.exec(run.stdout())![1]!;
    expect(run.stdout()).toContain(
      `  profile      none written: there is no user to log in as; reach it with --base-url ${url}\n`,
    );
    const next = await runInProcess(['tenants', 'ls'], env);
    run.interrupt();
    await run.done;
    expect([next.code, next.stderr]).toEqual([
      2,
      'error: no API base URL for profile "default"; run `svc sandbox start` (it configures a "sandbox" profile, unless --seed none), or pass --base-url / set SVC_BASE_URL / `svc config set base_url URL`\n',
    ]);
  });
});

// review-d 7: V8's lenient Date.parse took -1, 1.5 and "1 2" as HTTP dates, and the sandbox sent
// `retry-after: -1` (RFC 9110: delay-seconds is digits, an HTTP-date an IMF-fixdate).
describe('svc sandbox start --retry-after', () => {
  it.each(['-1', '1.5', '1 2', '', 'soon', '2026-01-01'])('refuses %j in one line, exit 2', async (value) => {
    const r = await runInProcess(['sandbox', 'start', '--port', '0', '--retry-after', value], dirs());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: --retry-after takes whole seconds (e.g. 5), an HTTP date (e.g. Wed, 21 Oct 2026 07:28:00 GMT) or "none", got ${JSON.stringify(value)}\n`,
    ]);
  });

  it.each(['0', '5', 'Wed, 21 Oct 2026 07:28:00 GMT', 'none'])('takes %j', async (value) => {
    const run = await started(['--retry-after', value], dirs());
    run.interrupt();
    expect((await run.done).code).toBe(0);
  });
});

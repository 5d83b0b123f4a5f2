// Over 300 lines: three real shells against one sandbox, one behaviour per test per shell.
/**
 * The completion scripts in real shells: bash and fish asked what TAB offers, zsh typed into in
 * a real terminal (tmux), and svc on PATH answering their TAB-time questions. Spawned because a
 * shell is the point; each shell's tests are skipped with a note when it is missing (CI=true
 * requires them). `svc __complete` itself is tested in-process in test/commands/completion/.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { runInProcess } from '../helpers/context.js';
import { needs } from '../helpers/needs.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, ROOT, TEST_CACHE_DIR } from '../helpers/svc.js';
import { tempDir, useTempDir } from '../helpers/temp.js';
import { Terminal } from '../helpers/terminal.js';

const run = promisify(execFile);
const sandbox = useSandbox();
const home = useTempDir('svc-completion-');
afterAll(async () => {
  for (const server of [odd, breaks])
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  rmSync(home, { recursive: true, force: true });
});
const bin = join(home, 'bin');
const scripts = {
  bash: join(ROOT, 'completions', 'svc.bash'),
  zsh: join(ROOT, 'completions', '_svc'),
  fish: join(ROOT, 'completions', 'svc.fish'),
};
let env: Record<string, string>;
/**
 * svc with no base URL or tenant in the environment, and a profile `labs` that names both (the
 * active profile is another).
 */
let bare: Record<string, string>;
/** acme-labs's only webhook, and a role that only acme-labs has. */
let labsWebhook: string;
const LABS_ROLE = 'labs_only';

/**
 * Role names a server other than the sandbox may send (the reference sets no pattern on a role's
 * name): shell code, quotes, backslashes, spaces and globs. TAB must offer each as the value it
 * is, and run nothing: the `$(…)`, backquote and `;` ones would create a file in `pwned`.
 */
const pwned = join(home, 'pwned');
const ODD_ROLES = [
  `$(touch\${IFS}${pwned}-dollar)`,
  `\`touch\${IFS}${pwned}-tick\``,
  `semi;touch\${IFS}${pwned}-semi`,
  'back\\slash',
  "quo'te",
  'dq"uote',
  'with space',
  'star*',
  'q?',
];
/**
 * Bash completion scripts svc wrote before session 11 (copied from git into old-completions/):
 * 0c94cae calls `svc __complete KIND`, 5de5339 `svc OPTIONS… __complete KIND`.
 */
const OLD_BASH_SCRIPTS = ['0c94cae', '5de5339'];
const pwnedFiles = () => readdirSync(home).filter((f) => f.startsWith('pwned'));
/** In front of the sandbox: its roles, then ODD_ROLES, for GET /v1/roles; 404 for anything else. */
let odd: Server;
let ODD_URL: string;
/**
 * Role names holding characters of bash's COMP_WORDBREAKS (readline splits the word being completed
 * at each), and one that would also run something if the part before its `:` were expanded.
 */
const BREAK_ROLES = ['a:b', 'u@h', 'x=y', 'p:q=r@s', `h$(touch\${IFS}${pwned}-colon):z`];
/** In front of the sandbox like `odd`, but GET /v1/roles lists BREAK_ROLES only. */
let breaks: Server;
let BREAKS_URL: string;

/** A server in front of the sandbox whose GET /v1/roles lists `names` (after the sandbox's roles, if `keep`). */
async function rolesServer(names: string[], keep: boolean): Promise<[Server, string]> {
  const server = createServer(async (request, response) => {
    if (request.method !== 'GET' || !request.url?.startsWith('/v1/roles')) {
      response.writeHead(404).end();
      return;
    }
    const upstream = await fetch(new URL(request.url, sandbox().url), {
      headers: {
        authorization: String(request.headers.authorization),
        'x-tenant-id': String(request.headers['x-tenant-id']),
      },
    });
    const page = (await upstream.json()) as { items: Array<Record<string, unknown>> };
    const model = page.items[0]!;
    const added = names.map((name, i) => ({ ...model, id: `role_${'0'.repeat(23)}${i}`, name }));
    page.items = keep ? [...page.items, ...added] : added;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}
/** A directory with two files and a directory that start with `pro`. */
const paths = join(home, 'paths');

beforeAll(async () => {
  [odd, ODD_URL] = await rolesServer(ODD_ROLES, true);
  [breaks, BREAKS_URL] = await rolesServer(BREAK_ROLES, false);
  mkdirSync(join(paths, 'probe'), { recursive: true });
  for (const file of ['proxy.js', 'proxy.log']) writeFileSync(join(paths, file), '');
  // `svc` on PATH, as after `npm link`, for the scripts' TAB-time questions.
  mkdirSync(bin);
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  env = {
    // The shells needs() found, and svc.
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    TERM: 'xterm',
    SVC_CACHE_DIR: TEST_CACHE_DIR,
    SVC_CONFIG_DIR: join(home, 'config'),
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
    SVC_TENANT: tenantId('acme-treasury'),
    // Each TAB-time question's limit (1.5 s by default) far above need: a loaded machine slows
    // the spawned svc, not what it answers, so no case's verdict depends on the load. The limit
    // itself is tested in-process (test/commands/completion/complete-limits.test.ts).
    SVC_COMPLETION_TIMEOUT: '60',
  };
  for (const name of ['prod', 'staging']) {
    await runInProcess(['-p', name, 'config', 'set', 'base_url', 'https://example.com'], {
      SVC_CONFIG_DIR: env.SVC_CONFIG_DIR!,
    });
  }
  const created = await runInProcess(
    [
      ...['--tenant', 'acme-labs', 'webhooks', 'create', '--url', 'https://example.com/labs'],
      ...['--event-type', 'exception.created', '--show-secret', '--json'],
    ],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  labsWebhook = JSON.parse(created.stdout).id;
  const role = ['roles', 'create', '--name', LABS_ROLE, '--permission', 'exception.read'];
  const made = await runInProcess(['--tenant', 'acme-labs', ...role], env);
  expect(made.code, made.stderr).toBe(0);
  const { SVC_BASE_URL: _url, SVC_TENANT: _tenant, ...rest } = env;
  bare = { ...rest, SVC_CONFIG_DIR: join(home, 'config-bare') };
  // The first profile configured is the active one: `idle`, on a server that is not there.
  for (const [profile, k, v] of [
    ['idle', 'base_url', 'http://127.0.0.1:1'],
    ['labs', 'base_url', sandbox().url],
    ['labs', 'tenant', 'acme-labs'],
  ] as const) {
    const r = await runInProcess(['-p', profile, 'config', 'set', k, v], bare);
    expect(r.code, r.stderr).toBe(0);
  }
});

/** The webhooks' ids, sorted, as the API lists them. */
async function webhookIds(): Promise<string[]> {
  const listed = await runInProcess(['webhooks', 'ls', '--json'], env);
  const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((w) => w.id);
  expect(ids.length).toBeGreaterThan(0);
  return ids.sort();
}

const words = (out: string) => out.split(/\s+/).filter(Boolean).sort();

async function bash(line: string[], shellEnv = env): Promise<string[]> {
  const script = `source ${scripts.bash}; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['-c', script, '_', ...line], { env: shellEnv });
  return words(stdout);
}

/**
 * A line as bash's readline hands it to a completion function: split at spaces, and at the `=`,
 * `:` and `@` of COMP_WORDBREAKS, each run of which is a word of its own (`--tenant=x` is three
 * words, `http://h:1` five, `a::b` three).
 */
const readlineWords = (line: string) =>
  line.split(' ').flatMap((word) => (word === '' ? [''] : word.split(/([=:@]+)/).filter(Boolean)));

async function fish(line: string, shellEnv = env): Promise<string[]> {
  const { stdout } = await run(
    'fish',
    ['--no-config', '-c', `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`],
    { env: shellEnv },
  );
  return words(
    stdout
      .split('\n')
      .map((l) => l.split('\t')[0])
      .join('\n'),
  );
}

const cases: Array<[string, string[]]> = [
  ['svc te', ['tenants']],
  ['svc tenants ', ['api-keys', 'ls']],
  ['svc tenant ls --ti', ['--tier', '--timeout']],
  ['svc tenants ls --tier ', ['enterprise', 'free', 'pro']],
  ['svc -p prod tenants ls --tier ', ['enterprise', 'free', 'pro']],
  ['svc config set ', ['app_url', 'base_url', 'client_id', 'org', 'tenant']],
  ['svc completion ', ['bash', 'fish', 'zsh']],
  ['svc profiles use ', ['prod', 'staging']],
  ['svc --profile ', ['prod', 'staging']],
  ['svc webhooks dlq l', ['ls']],
  ['svc webhooks dlq wh_1 --sta', ['--status']],
  ['svc webhooks dlq wh_1 --status ', ['all', 'discarded', 'queued', 'recovered', 'replayed']],
  // The documented record surfaces; only the writable ones where a write is asked.
  [
    'svc records ls ',
    ['accounts', 'audit_trail', 'evidence_packs', 'exceptions', 'reconciliations', 'rules'].sort(),
  ],
  ['svc records get a', ['accounts', 'audit_trail']],
  ['svc records create ', ['accounts', 'evidence_packs', 'exceptions', 'reconciliations', 'rules']],
  [
    'svc audit ls --action role',
    [
      'role',
      'role.assigned',
      'role.assignment_updated',
      'role.created',
      'role.deleted',
      'role.revoked',
      'role.updated',
    ],
  ],
];

/**
 * Lines that name a profile, tenant or base URL: TAB offers what that command would act on
 * (`shellEnv` is the environment: `bare` has neither base URL nor tenant, only the profile `labs`).
 */
const contextCases = (): Array<[string, Record<string, string>, string[]]> => [
  ['svc --tenant acme-labs webhooks get ', env, [labsWebhook]],
  ['svc webhooks get --tenant acme-labs ', env, [labsWebhook]],
  ['svc --tenant=acme-labs webhooks get ', env, [labsWebhook]],
  [`svc --tenant ${tenantId('acme-labs')} webhooks dlq ls `, env, [labsWebhook]],
  ['svc --tenant acme-labs roles get labs', env, [LABS_ROLE]],
  ['svc roles get labs', env, []],
  ['svc -p labs webhooks get ', bare, [labsWebhook]],
  ['svc webhooks get --profile labs ', bare, [labsWebhook]],
  ['svc --profile=labs webhooks get ', bare, [labsWebhook]],
  ['svc webhooks get ', bare, []],
  // A short option with its value attached, as commander reads it.
  ['svc -plabs webhooks get ', bare, [labsWebhook]],
  ['svc webhooks get -plabs ', bare, [labsWebhook]],
  // Quoted values, as the shell will pass them.
  ['svc --tenant "acme-labs" roles get labs', env, [LABS_ROLE]],
  ["svc --tenant 'acme-labs' webhooks get ", env, [labsWebhook]],
  ['svc -p "labs" webhooks get ', bare, [labsWebhook]],
  ['svc -p labs --tenant acme-l', bare, ['acme-labs', 'acme-ledger-uk']],
  ['svc -p labs roles get --tenant acme-labs labs', bare, [LABS_ROLE]],
  [
    `svc --base-url ${sandbox().url} roles get tenant_ad`,
    { ...env, SVC_BASE_URL: 'http://127.0.0.1:1' },
    ['tenant_admin'],
  ],
  [
    `svc roles get --base-url=${sandbox().url} tenant_ad`,
    { ...env, SVC_BASE_URL: 'http://127.0.0.1:1' },
    ['tenant_admin'],
  ],
  ['svc --base-url http://127.0.0.1:1 roles get tenant_ad', env, []],
];

/** Options and arguments that take a path: files (directories too), or directories only. */
const pathCases = (): Array<[string, 'files' | 'dirs']> => [
  [`svc apply ${paths}/pro`, 'files'],
  [`svc export -o ${paths}/pro`, 'files'],
  [`svc export --output ${paths}/pro`, 'files'],
  [`svc plan --out ${paths}/pro`, 'files'],
  [`svc apply --secret-dir ${paths}/pro`, 'dirs'],
  [`svc webhooks listen --capture ${paths}/pro`, 'dirs'],
];

describe('completion scripts in real shells', () => {
  needs('bash').describe('bash', () => {
    it.each(cases)('completes %j', async (line, expected) => {
      expect(await bash(line.split(' '))).toEqual(expected);
    });

    it('completes role names, webhook ids and tenant ids from the API, at TAB time', async () => {
      const roles = await bash(['svc', 'roles', 'get', '']);
      expect(roles).toEqual(expect.arrayContaining(['tenant_admin', 'tenant_viewer', 'org_admin']));
      const ids = await webhookIds();
      // deliveries and dlq are groups whose default verb is ls: their verbs and the webhook ids both complete.
      expect(await bash(['svc', 'webhooks', 'deliveries', ''])).toEqual([...ids, 'get', 'ls'].sort());
      expect(await bash(['svc', 'webhooks', 'dlq', ''])).toEqual([...ids, 'discard', 'get', 'ls'].sort());
      expect(await bash(['svc', 'webhooks', 'dlq', 'ls', ''])).toEqual(ids);
      expect(await bash(['svc', 'tenants', 'api-keys', 'ls', ''])).toContain(tenantId('acme-treasury'));
      expect(await bash(['svc', '--tenant', 'acme-l'])).toEqual(['acme-labs', 'acme-ledger-uk']);
    });

    it('asks svc with the -p, --profile, --tenant, --org and --base-url already on the line', async () => {
      for (const [line, shellEnv, expected] of contextCases()) {
        expect(await bash(readlineWords(line), shellEnv), line).toEqual(expected);
      }
      // Bash alone splits `--tenant=acme-l` at the `=`: the word after it is the value to complete.
      expect(await bash(readlineWords('svc --tenant=acme-l'))).toEqual(['acme-labs', 'acme-ledger-uk']);
    });

    it('offers a value from the server as a word that is that value, and runs nothing in it', async () => {
      // Each candidate read back as the shell reads the line it completes.
      const typed = async (line: string) => {
        const script = `source ${scripts.bash}; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _svc; for c in "\${COMPREPLY[@]}"; do eval "printf '%s\\n' $c"; done`;
        const { stdout } = await run('bash', ['-c', script, '_', ...readlineWords(line)], {
          env,
          cwd: paths,
        });
        return stdout.split('\n').filter(Boolean).sort();
      };
      const all = await typed(`svc --base-url ${ODD_URL} roles get `);
      expect(all).toEqual(expect.arrayContaining([...ODD_ROLES, 'tenant_admin']));
      expect(await typed(`svc --base-url ${ODD_URL} roles get 'quo`)).toEqual(["quo'te"]);
      expect(await typed(`svc --base-url ${ODD_URL} roles get back\\\\`)).toEqual(['back\\slash']);
      expect(await typed(`svc --base-url ${ODD_URL} roles get "with`)).toEqual(['with space']);
      expect(await typed(`svc --base-url ${ODD_URL} roles get sta`)).toEqual(['star*']);
      expect(pwnedFiles()).toEqual([]);
    });

    it('completes a value holding `:`, `=` or `@` past that character, offering what follows it', async () => {
      // What readline replaces is the text after the last break (an @ break included: it is one
      // of readline's special prefixes): the candidates are the rest of each name, and the line
      // then holds the whole name (see the tmux test below).
      const at = (typed: string) => bash(readlineWords(`svc --base-url ${BREAKS_URL} ${typed}`));
      expect(await at('roles get a:')).toEqual(['b']);
      expect(await at('roles get u@')).toEqual(['@h']);
      expect(await at('roles get x=')).toEqual(['y']);
      expect(await at('roles get p:q=r@')).toEqual(['@s']);
      expect(await at('roles get p:q')).toEqual(['q=r@s']);
      expect(await at('roles get p:q=r@s')).toEqual(['@s']);
      expect(await at('roles get p')).toEqual(['p:q=r@s']);
      expect(await at('roles get a:x')).toEqual([]);
      expect(await at('roles get ')).toEqual(
        [...BREAK_ROLES.slice(0, 4), BREAK_ROLES[4]!.replace(/[$(){}]/g, '\\$&')].sort(),
      );
      // An option's value after its `=`, and a name with a break earlier on the line (one word).
      expect(await at('tenants ls --role=p:q=')).toEqual(['r@s']);
      const all = await at('tenants ls --role=');
      expect(all).toHaveLength(BREAK_ROLES.length);
      expect(all).toEqual(expect.arrayContaining(BREAK_ROLES.slice(0, 4)));
      expect(await at('roles assign u@h p:')).toEqual(['q=r@s']);
      expect(await at('roles assign u@h --expires-in 1d a:')).toEqual(['b']);
      // The part before the break is never expanded: a hostile name completes as itself.
      expect(await at(`roles get h\\$\\(touch\\$\\{IFS\\}${pwned}-colon\\):`)).toEqual(['z']);
      expect(pwnedFiles()).toEqual([]);
    });

    needs('tmux').describe('interactive (in tmux)', () => {
      it('TAB writes a whole name holding `:`, `=` or `@` into the line', async () => {
        const term = await Terminal.start('bash --norc --noprofile', env);
        try {
          await term.type(`source ${scripts.bash}; PS1='ready> '`);
          await term.send('Enter');
          await term.waitFor(/ready>\s*$/m);
          for (const [typed, name] of [
            ['a:', 'a:b'],
            ['u@', 'u@h'],
            ['x=', 'x=y'],
            ['p:q=r@', 'p:q=r@s'],
          ] as const) {
            const line = `svc --base-url ${BREAKS_URL} roles get `;
            await term.send('C-u');
            await term.type(`${line}${typed}`);
            await term.send('Tab');
            await term.waitFor(`${line}${name}`);
            await term.interrupt(/ready>\s*$/m);
          }
        } finally {
          await term.close();
        }
      });
    });

    it.each(OLD_BASH_SCRIPTS)(
      'a script written before session 11 (%s), installed in a file and kept after an upgrade, runs nothing',
      async (commit) => {
        // That script hands `svc __complete`'s answer to `compgen -W`, which expands `$(…)` and
        // backquotes: the svc of today gives it only the values nothing in which would expand.
        const script = `source ${join(ROOT, 'test', 'e2e', 'old-completions', `svc-${commit}.bash`)}; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
        const line = ['svc', 'roles', 'get', ''];
        for (const file of pwnedFiles()) rmSync(join(home, file));
        const { stdout } = await run('bash', ['-c', script, '_', ...line], {
          env: { ...env, SVC_BASE_URL: ODD_URL },
          cwd: paths,
        });
        expect(pwnedFiles()).toEqual([]);
        // The server's plain role names, as today's script completes them from the sandbox.
        const plain = await bash(line);
        expect(plain).toContain('tenant_admin');
        expect(words(stdout)).toEqual(plain);
      },
    );

    it.each(pathCases())('completes %j with names from the file system', async (line, kind) => {
      const expected = kind === 'files' ? ['probe', 'proxy.js', 'proxy.log'] : ['probe'];
      expect(await bash(line.split(' '))).toEqual(expected.map((name) => `${paths}/${name}`));
    });
  });

  needs('fish').describe('fish', () => {
    it.each(cases)('completes %j', async (line, expected) => {
      expect(await fish(line)).toEqual(expected);
    });

    it('completes role names, webhook ids and tenant ids from the API, at TAB time', async () => {
      expect(await fish('svc roles assign usr_viewer ')).toEqual(expect.arrayContaining(['tenant_analyst']));
      const ids = await webhookIds();
      expect(await fish('svc webhooks dlq ')).toEqual([...ids, 'discard', 'get', 'ls'].sort());
      expect(await fish('svc webhooks dlq ls ')).toEqual(ids);
      expect(await fish('svc --tenant ')).toContain(tenantId('acme-labs'));
      expect(await fish('svc --tenant acme-l')).toEqual(['acme-labs', 'acme-ledger-uk']);
    });

    it('asks svc with the -p, --profile, --tenant, --org and --base-url already on the line', async () => {
      for (const [line, shellEnv, expected] of contextCases()) {
        expect(await fish(line, shellEnv), line).toEqual(expected);
      }
    });

    // attack23 F3: variables typed before svc on the line are the command's: fish sets them (and
    // exports them) while it completes, so `svc __complete` sees them as the command will.
    it('honours SVC_PROFILE and SVC_TENANT typed before svc on the line', async () => {
      expect(await fish('SVC_PROFILE=labs svc webhooks get ', bare)).toEqual([labsWebhook]);
      expect(await fish('SVC_TENANT=acme-labs svc roles get labs')).toEqual([LABS_ROLE]);
      expect(
        await fish(`SVC_CONFIG_DIR=${bare.SVC_CONFIG_DIR} SVC_PROFILE=labs svc webhooks get `, {
          ...bare,
          SVC_CONFIG_DIR: env.SVC_CONFIG_DIR!,
        }),
      ).toEqual([labsWebhook]);
    });

    it('offers a value from the server as it is, and runs nothing in it', async () => {
      const { stdout } = await run(
        'fish',
        [
          '--no-config',
          '-c',
          `source ${scripts.fish}; complete -C ${JSON.stringify(`svc --base-url ${ODD_URL} roles get `)}`,
        ],
        { env },
      );
      expect(stdout.split('\n')).toEqual(expect.arrayContaining([...ODD_ROLES, 'tenant_admin']));
      expect(pwnedFiles()).toEqual([]);
    });

    it.each(pathCases())('completes %j with names from the file system', async (line, kind) => {
      const expected = kind === 'files' ? ['probe/', 'proxy.js', 'proxy.log'] : ['probe/'];
      expect(await fish(line)).toEqual(expected.map((name) => `${paths}/${name}`));
    });
  });

  needs('zsh', 'tmux').describe('zsh (interactive, in tmux)', () => {
    let term: Terminal;
    beforeAll(async () => {
      // 400 columns: a line holding the test's temporary paths must not wrap under a long TMPDIR
      // (a 65-character one wrapped 7 cases at 120), as zsh redraws a line it wraps in a way no
      // capture joins again.
      term = await Terminal.start('zsh -f', env, 400);
      await term.type(`autoload -U compinit && compinit -u && source ${scripts.zsh} && PS1='ready> '`);
      await term.send('Enter');
      await term.waitFor(/ready>\s*$/m);
    });
    afterAll(() => term.close());

    /** Types `line`, presses TAB (then types `after`), waits for `shown` on the screen, clears the line. */
    async function complete(line: string, shown: string | RegExp, after = ''): Promise<void> {
      await term.send('C-u');
      await term.type(line);
      await term.send('Tab');
      if (after) await term.type(after);
      // Lines the terminal wrapped joined again (a completion zsh wrote past the edge): with the
      // 400 columns, so no match depends on the length of the temporary directory's path.
      await term.waitFor(shown, undefined, { joined: true });
      await term.interrupt(/ready>\s*$/m);
    }

    it.each([
      ['svc tenants ls --tier ', /enterprise +free +pro/],
      ['svc tenants ', /api-keys +-- Tenant API keys.*\n.*ls +-- List the tenants visible to you/],
      ['svc profiles use ', /prod +staging/],
      [
        'svc webhooks dlq ',
        /wh_\w+ +wh_\w+\n+discard +-- Discard dead-letter entries.*\n+get +-- Show one dead-letter queue entry.*\n+ls +-- List the dead-letter queue/,
      ],
    ])('completes %j', async (line, expected) => {
      await complete(line, expected);
    });

    it.each([
      ['svc --tenant acme-labs webhooks get ', () => labsWebhook],
      ['svc webhooks get --tenant acme-labs ', () => labsWebhook],
      ['svc --tenant acme-labs roles get lab', () => LABS_ROLE.slice(3)],
      ['svc --tenant "acme-labs" roles get lab', () => LABS_ROLE.slice(3)],
      [`svc apply --secret-dir ${paths}/pro`, () => 'be/'],
      [`svc export -o ${paths}/proxy.j`, () => 's'],
    ])('completes %j with the flags on the line', async (line, rest) => {
      // The one candidate: zsh writes it into the line.
      await complete(line, `${line}${rest()}`);
    });

    // attack23 F3: zsh leaves `NAME=value` words before svc out of `words` and does not set them
    // while completing: the script reads them from the line (LBUFFER), as the command will get them.
    it.each([
      ['SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ["echo hi; SVC_TENANT='acme-labs' svc roles get lab", () => LABS_ROLE.slice(3)],
      ['SVC_TENANT=acme-labs svc webhooks get wh_', () => labsWebhook.slice(3)],
      // Another config directory and profile; SVC_TENANT= set empty leaves the tenant to the profile.
      ['SVC_CONFIG_DIR=BARE SVC_PROFILE=labs SVC_TENANT= svc roles get lab', () => LABS_ROLE.slice(3)],
      // review23c L1: words after which zsh still takes NAME=value words as the command's.
      ['time SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['! SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['nocorrect SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['if true; then SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['for i in 1; do SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      // (At the very start of the line zsh does not complete svc's words after a redirection and a
      // NAME=value word at all: it offers file names.)
      ['true; 2>/dev/null SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['SVC_CONFIG_DIR=BARE >&2 SVC_PROFILE=labs SVC_TENANT= svc roles get lab', () => LABS_ROLE.slice(3)],
      // Through env, as env reads its words (unquoted): NAME=value, -u NAME, -uNAME. (zsh 5.9 does
      // not complete the command after env's -- at all.)
      ['env SVC_TENANT=acme-labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['true && env "SVC_TENANT=acme-labs" svc webhooks get wh_', () => labsWebhook.slice(3)],
      ['env -u SVC_TENANT SVC_CONFIG_DIR=BARE SVC_PROFILE=labs svc roles get lab', () => LABS_ROLE.slice(3)],
      ['SVC_CONFIG_DIR=BARE env -uSVC_TENANT SVC_PROFILE=labs svc roles get lab', () => LABS_ROLE.slice(3)],
    ])('completes %j for the variables typed before svc', async (typed, rest) => {
      const line = typed.replace('BARE', bare.SVC_CONFIG_DIR!);
      await complete(line, `${line}${rest()}`);
    });

    it.each([
      // A value TAB cannot know without running something: nothing is offered for another one.
      'SVC_TENANT="$(echo acme-labs)" svc roles get tenant_ad',
      'SVC_TENANT=$T svc roles get tenant_ad',
      // Set for an earlier command on the line, not for svc: svc's own tenant (acme-treasury).
      'SVC_TENANT=acme-labs true; svc roles get lab',
      // review23f L5: a redirection's target that looks like an assignment is a file name to zsh:
      // svc's own tenant. (No row after command, exec, noglob or builtin: such rows pass even with
      // those words added to the script's list, as zsh 5.9 offers no labs role there either way.)
      'true; >| SVC_TENANT=acme-labs svc roles get lab',
      'true; 2> SVC_TENANT=acme-labs svc roles get lab',
      // The environment svc will get cannot be known from the line: env clearing it, an option env
      // has that TAB does not read, env -u of a variable svc may read (HOME) or that finds it, and an
      // earlier command on the line that may change it.
      'env -i SVC_TENANT=acme-labs svc roles get tenant_ad',
      'env -C / svc roles get tenant_ad',
      'env -u HOME svc roles get tenant_ad',
      'export SVC_TENANT=acme-labs; svc roles get tenant_ad',
      'SVC_TENANT=acme-labs; svc roles get tenant_ad',
    ])('offers nothing another tenant would not have: %j', async (line) => {
      // Typed after TAB: the line shows it right after what was typed only if TAB wrote nothing.
      await complete(line, `${line}Z`, 'Z');
    });

    // review23f L3: zsh expands a leading = (EQUALS: =cfg is the command cfg's path) and ~ after :
    // in an assignment, so the command gets another value than the one typed. Typed in a directory
    // where the value as typed names the labs profile's config: TAB must not offer its roles.
    it.each([
      'SVC_CONFIG_DIR==cfg SVC_PROFILE=labs SVC_TENANT= svc roles get lab',
      'SVC_CONFIG_DIR=a:~/cfg SVC_PROFILE=labs SVC_TENANT= svc roles get lab',
    ])('offers nothing for a value zsh expands: %j', async (line) => {
      const typedDir = join(home, 'typed');
      mkdirSync(join(typedDir, 'a:~'), { recursive: true });
      for (const dir of ['=cfg', 'a:~/cfg']) {
        rmSync(join(typedDir, dir), { force: true });
        symlinkSync(bare.SVC_CONFIG_DIR!, join(typedDir, dir));
      }
      await term.send('C-u');
      await term.type(`cd ${typedDir}`);
      await term.send('Enter');
      await term.waitFor(/ready>\s*$/m);
      try {
        await complete(line, `${line}Z`, 'Z');
      } finally {
        await term.type('cd -');
        await term.send('Enter');
        await term.waitFor(/ready>\s*$/m);
      }
    });

    it('writes a value from the server quoted: the line holds the value, and nothing ran', async () => {
      const line = `svc --base-url ${ODD_URL} roles get semi`;
      await complete(line, `${line}\\;touch\\$\\{IFS\\}${pwned}-semi`);
      expect(pwnedFiles()).toEqual([]);
    });
  });
});

needs('bash').describe('the README install lines, on a fresh account', () => {
  it('write every script where the shell looks, creating the directories', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Shell completion'));
    const start = section.indexOf('```sh\n') + '```sh\n'.length;
    const block = section.slice(start, section.indexOf('\n```', start));
    const fresh = tempDir('svc-fresh-home-');
    try {
      // Each line as a user pastes it (comments included), in a home with no dot-directories.
      await run('bash', ['-euc', block], { env: { ...env, HOME: fresh } });
      for (const [file, first] of [
        ['.local/share/bash-completion/completions/svc', '# bash completion for svc'],
        ['.zfunc/_svc', '#compdef svc'],
        ['.config/fish/completions/svc.fish', '# fish completion for svc'],
      ] as const) {
        expect(readFileSync(join(fresh, file), 'utf8').split('\n').slice(0, 2).join('\n'), file).toContain(
          first,
        );
      }
      expect(readFileSync(join(fresh, '.zshrc'), 'utf8')).toContain('fpath=(~/.zfunc $fpath)');
      expect(readFileSync(join(fresh, '.bashrc'), 'utf8')).toBe('source <(svc completion bash)\n');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

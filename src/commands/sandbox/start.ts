import { once } from 'node:events';
import { Command, Option } from 'commander';
import { newSessionId } from '../../auth/session.js';
import { decimal } from '../../config/decimal.js';
import { profileOption } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
import { sym } from '../../output/symbols.js';
import { isRetryAfter } from '../../sandbox/retry-after.js';
import { shellWord } from '../../system/shell-words.js';
import { choiceFlag, examples, intFlag, type MakeContext } from '../kit.js';
import { activeOverridden } from '../profiles/shared.js';
import { bindError, confirmReplacing, parseHost } from './start-checks.js';

export interface SandboxStartOptions {
  host: string;
  port: number;
  seed: 'demo' | 'none';
  tenants: number;
  users: number;
  profile: boolean;
  /** The webhook delivery engine (SandboxOptions.webhooks). */
  webhooks: { timeScale?: number; requestTimeoutMs?: number; concurrency?: number };
  faults: {
    fail_rate?: number;
    fail_status?: number;
    retry_after?: string | null;
    drop_rate?: number;
    latency_ms?: number;
    rate_limit?: number;
    phase?: 'before' | 'after' | 'both';
    seed?: number | null;
  };
}

function rate(flag: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = decimal(raw, 'number');
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`${flag} must be a number from 0 to 1, got ${quoted(String(raw))}`);
  }
  return value;
}

export function parseSandboxStart(flags: Record<string, unknown>): SandboxStartOptions {
  const host = parseHost(flags.host);
  const faults: SandboxStartOptions['faults'] = {};
  const set = <K extends keyof SandboxStartOptions['faults']>(
    key: K,
    value: SandboxStartOptions['faults'][K] | undefined,
  ) => {
    if (value !== undefined) faults[key] = value;
  };
  set('fail_rate', rate('--fail-rate', flags.failRate));
  set('drop_rate', rate('--drop-rate', flags.dropRate));
  set('fail_status', intFlag('--fail-status', flags.failStatus, 500, 599));
  set('latency_ms', intFlag('--latency', flags.latency, 0, 60_000));
  set('rate_limit', intFlag('--rate-limit', flags.rateLimit, 0, 1_000_000));
  set('phase', choiceFlag('--fault-phase', flags.faultPhase, ['before', 'after', 'both'] as const));
  set('seed', intFlag('--fault-seed', flags.faultSeed, 0, 2 ** 31 - 1));
  if (flags.retryAfter !== undefined) {
    const value = String(flags.retryAfter);
    if (value !== 'none' && !isRetryAfter(value)) {
      throw new UsageError(
        `--retry-after takes whole seconds (e.g. 5), an HTTP date (e.g. Wed, 21 Oct 2026 07:28:00 GMT) or "none", got ${quoted(value)}`,
      );
    }
    faults.retry_after = value === 'none' ? null : value;
  }
  const webhooks: SandboxStartOptions['webhooks'] = {};
  if (flags.webhookTimeScale !== undefined) {
    const scale = decimal(flags.webhookTimeScale, 'number');
    if (!Number.isFinite(scale) || scale < 0 || scale > 1000) {
      throw new UsageError(
        `--webhook-time-scale must be a number from 0 to 1000, got ${quoted(String(flags.webhookTimeScale))}`,
      );
    }
    webhooks.timeScale = scale;
  }
  const timeout = intFlag('--webhook-timeout', flags.webhookTimeout, 1, 300_000);
  if (timeout !== undefined) webhooks.requestTimeoutMs = timeout;
  const concurrency = intFlag('--webhook-concurrency', flags.webhookConcurrency, 1, 4096);
  if (concurrency !== undefined) webhooks.concurrency = concurrency;
  return {
    host,
    webhooks,
    port: intFlag('--port', flags.port, 0, 65_535) ?? 4010,
    seed: choiceFlag('--seed', flags.seed, ['demo', 'none'] as const) ?? 'demo',
    tenants: intFlag('--tenants', flags.tenants, 0, 1_000_000) ?? 0,
    users: intFlag('--users', flags.users, 0, 1_000_000) ?? 0,
    profile: flags.saveProfile !== false,
    faults,
  };
}

export async function runSandboxStart(ctx: Context, options: SandboxStartOptions): Promise<void> {
  const profile = ctx.globals.profile ?? 'sandbox';
  // Without an admin (--seed none) there is no credential to save: no profile is written.
  const replaced =
    options.profile && options.seed === 'demo' ? await confirmReplacing(ctx, profile, options) : undefined;
  const [
    { startSandbox, isEveryInterface, isLoopbackBound },
    { tenantId, PRIMARY_TENANT_SLUG, DEMO_ORG },
    { CLI_CLIENT_ID },
  ] = await Promise.all([
    import('../../sandbox/server.js'),
    import('../../sandbox/seed.js'),
    import('../../sandbox/domain/oauth.js'),
  ]);
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      host: options.host,
      port: options.port,
      seed: options.seed,
      tenants: options.tenants,
      users: options.users,
      faults: options.faults,
      webhooks: options.webhooks,
      log: (line) => ctx.out.stderr(`${line}\n`),
    });
  } catch (error) {
    throw bindError(
      error,
      options,
      options.profile ? { name: profile, base: ctx.store().profile(profile)?.base_url } : undefined,
    );
  }
  // Judged by the address the system bound (127.1, 127.0.0.2 and a name for 127.0.0.1 are
  // loopback too), not by how --host spelled it.
  if (!isLoopbackBound(sandbox.bound)) {
    ctx.out.warn(`--host ${options.host} is not loopback: anyone who can reach it can mint sandbox tokens`);
  }
  const tenant = options.seed === 'demo' ? tenantId(PRIMARY_TENANT_SLUG) : undefined;
  const org = options.seed === 'demo' ? DEMO_ORG : undefined;
  let activated = false;
  const saved = options.profile && sandbox.adminToken !== '';
  if (saved) {
    const store = ctx.store();
    // Made before anything is written: a URL that cannot be parsed changes no file.
    const origin = new URL(sandbox.url).origin;
    await store.setProfileValues(profile, {
      base_url: sandbox.url,
      app_url: sandbox.url,
      client_id: CLI_CLIENT_ID,
      ...(tenant ? { tenant } : {}),
      ...(org ? { org } : {}),
    });
    await store.setCredential(profile, {
      type: 'token',
      access_token: sandbox.adminToken,
      origin,
      session: newSessionId(),
      obtained_at: new Date(ctx.clock.now()).toISOString(),
    });
    const active = store.activeProfile();
    if (!active || !store.profile(active)?.base_url || active === profile) {
      await store.setActiveProfile(profile);
      activated = true;
    }
    if (replaced) ctx.out.warn(replaced);
  }
  // Made active, but not what this shell's commands use when SVC_PROFILE names another profile.
  const overridden = activated ? activeOverridden(ctx.env, profile) : undefined;
  if (overridden) ctx.out.warn(overridden);
  const info = {
    url: sandbox.url,
    app_url: sandbox.url,
    admin_token: sandbox.adminToken || null,
    tenant: tenant ?? null,
    org: org ?? null,
    client_id: CLI_CLIENT_ID,
    profile: saved ? profile : null,
  };
  if (ctx.out.isMachine) {
    await ctx.out.json(info);
  } else {
    // A wildcard bind's URL is a loopback one (src/sandbox/server.ts): what is bound is said too.
    const every = isEveryInterface(sandbox.bound);
    await ctx.out.text(
      `svc sandbox listening on ${sandbox.url}${every ? ` (every interface: --host ${options.host})` : ''}`,
    );
    await ctx.out.text(
      `  admin token  ${sandbox.adminToken || 'none: --seed none makes no users; restart without it for an admin'}`,
    );
    if (tenant) await ctx.out.text(`  tenant       ${tenant} (Acme Treasury)`);
    if (org) await ctx.out.text(`  org          ${org} (Acme Group)`);
    await ctx.out.text(`  oauth client ${CLI_CLIENT_ID} (public, PKCE; \`svc login\` uses it)`);
    if (saved) {
      await ctx.out.text(
        `  profile      "${profile}"${activated ? ' (active)' : `; use it with \`svc ${profileOption(profile)} ${sym.ellipsis}\` or \`svc profiles use ${shellWord(profile)}\``}`,
      );
    } else if (options.profile) {
      // --seed none: no admin, so no credential and no profile; said, not left for the next
      // command to find out (it would say to run this one).
      await ctx.out.text(
        `  profile      none written: there is no user to log in as; reach it with --base-url ${sandbox.url}`,
      );
    }
    // A command that works as it is typed: the profile is the one in use only when it was
    // activated and SVC_PROFILE does not name another.
    const next = saved
      ? `svc ${activated && !overridden ? '' : `${profileOption(profile)} `}tenants ls`
      : sandbox.adminToken
        ? `SVC_TOKEN=<admin token> svc --base-url ${sandbox.url} tenants ls`
        : undefined;
    await ctx.out.text(
      `${next ? `Try \`${next}\` in another terminal. ` : ''}Ctrl-C stops the sandbox (its data lives in memory).`,
    );
  }
  if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
  await sandbox.close();
  ctx.out.info('sandbox stopped');
}

export function startCommand(make: MakeContext): Command {
  return new Command('start')
    .description(
      'Start the sandbox in the foreground. It seeds demo data (an org, tenants of every tier, a user\n' +
        'per built-in role), prints its URL and an admin token, and configures a "sandbox" profile\n' +
        '(the active one unless another profile is already set up); with --seed none there is no user,\n' +
        'so no admin token and no profile (it says so). State lives in memory. A -p NAME\n' +
        'that points at another platform (or holds a login for one), or at a local server that still\n' +
        'answers (a sandbox running), is replaced only after a prompt or with --yes; its login is not\n' +
        'revoked. Ctrl-C stops the sandbox: exit 0 (a second Ctrl-C: 130).',
    )
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default('4010'))
    .addOption(
      new Option(
        '--host <host>',
        "address of this machine to bind; 0.0.0.0 or :: binds every interface (the URL saved is then loopback; the machine's own name is served too)",
      ).default('127.0.0.1'),
    )
    .addOption(new Option('--seed <seed>', 'demo data, or none').choices(['demo', 'none']).default('demo'))
    .addOption(new Option('--tenants <n>', 'also seed N generated tenants in org_demo (benchmarks)'))
    .addOption(
      new Option(
        '--users <n>',
        'also seed N users without roles in org_demo: usr_bulk_000001, … (bulk grants)',
      ),
    )
    .addOption(new Option('--no-save-profile', 'do not write the sandbox profile'))
    .addOption(
      new Option('--fail-rate <rate>', 'answer this share (0-1) of /v1 requests with 503 + Retry-After'),
    )
    .addOption(new Option('--fail-status <status>', 'status of injected failures (default 503)'))
    .addOption(
      new Option(
        '--retry-after <value>',
        'Retry-After of injected failures: whole seconds, an HTTP date (IMF-fixdate), or none',
      ),
    )
    .addOption(new Option('--drop-rate <rate>', 'drop the connection of this share (0-1) of /v1 requests'))
    .addOption(new Option('--fault-phase <phase>', 'inject faults before the handler, after it, or both'))
    .addOption(new Option('--fault-seed <n>', 'seed for reproducible fault injection'))
    .addOption(new Option('--latency <ms>', 'add this latency to every /v1 request'))
    .addOption(new Option('--rate-limit <n>', 'answer 429 above N requests per second'))
    .addOption(
      new Option(
        '--webhook-time-scale <factor>',
        'multiply the webhook retry schedule (30 s, 1 min, 2 min, …) by this; 0.001 makes minutes milliseconds',
      ),
    )
    .addOption(
      new Option('--webhook-timeout <ms>', 'request timeout of one webhook delivery attempt (default 10000)'),
    )
    .addOption(
      new Option('--webhook-concurrency <n>', 'webhook delivery attempts in flight at once (default 64)'),
    )
    .addHelpText(
      'after',
      examples(
        ['svc sandbox start', 'a sandbox on http://127.0.0.1:4010 with demo data'],
        ['svc sandbox start --port 0 --json', 'a free port; the URL and token as JSON'],
        ['svc sandbox start --fail-rate 0.3 --retry-after 1', 'fail 30% of requests, to test retries'],
        ['svc sandbox start --webhook-time-scale 0.01', 'webhook retries 100 times faster than real time'],
        ['svc sandbox start --users 10000', 'with 10,000 users without roles, for bulk grants'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseSandboxStart(flags);
      await runSandboxStart(await make(cmd), options);
    });
}

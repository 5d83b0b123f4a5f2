// Over 300 lines: the Context interface (every seam a verb may use, each documented) and its one
// implementation, createContext, which wires each seam lazily; apart, each would be read only
// beside the other.
import { canonicalTenantRef, isTenantId } from './api/tenant-id.js';
import {
  type BindingOptions,
  type CredentialSource,
  credentialsFor,
  staticCredentials,
  storedCredentialsOf,
} from './auth/credentials.js';
import { clientLoginHint, loginHint, otherCredentialHint } from './auth/login-hint.js';
import { tokenUrl } from './auth/token-endpoint.js';
import type { JournalDisk } from './bulk/journal-disk.js';
import type { StoreDisk } from './config/disk.js';
import { envSwitch } from './config/env-flags.js';
import { parseMaxResponseBytes, parseMaxRetries, parseTimeout } from './config/env-limits.js';
import { configDir } from './config/paths.js';
import {
  checkBaseUrlPath,
  loginCommand,
  missingActiveProfileError,
  profileFlag,
  refuseCredentialSettings,
  refuseUrlQueries,
  resolveProfileName,
  resolveSettings,
  type Settings,
  svcCommand,
  TENANT_PLACEHOLDER,
  unknownProfileError,
} from './config/settings.js';
import { ConfigStore } from './config/store.js';
import { UsageError } from './errors.js';
import type { ApiClient } from './http/client.js';
import { SecretRegistry } from './http/redact.js';
import type { Env, IOStreams } from './output/io.js';
import { Output, type OutputMode } from './output/output.js';
import { timeAtOffset } from './platform/clock.js';
import type { Platform } from './platform/index.js';
import { findTenant } from './platform/tenant-ref.js';
import type { Browser } from './system/browser.js';
import { type Clock, realSleep, realTimer } from './system/clock.js';
import { linkedSignal } from './system/linked-signal.js';
import { sleepSync } from './system/output-file.js';
import { inquirerPrompter, type Prompter } from './system/prompter.js';
import { VERSION } from './version.js';

/** The global flags of the contract, as commander parses them. */
export interface GlobalOptions {
  profile?: string;
  /**
   * `profile` may be an existing profile's name that looks like a credential (an older svc saved
   * it): only to remove it (`profiles rm`), never to make one.
   */
  removingProfile?: boolean;
  baseUrl?: string;
  appUrl?: string;
  tenant?: string;
  /** Every --tenant given, in order (the last one is `tenant`). */
  tenants?: string[];
  org?: string;
  json?: boolean;
  ndjson?: boolean;
  /** Terminal tables keep every column at full width. */
  wide?: boolean;
  debug?: boolean;
  color?: boolean;
  yes?: boolean;
  timeout?: string;
  allowInsecureHttp?: boolean;
}

export type { Clock };

/** What the outside world gives a command run: streams, environment, Ctrl-C, and adapters. */
export interface ContextDeps {
  io: IOStreams;
  env: Env;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  clock?: Clock;
  browser?: Browser;
  prompter?: Prompter;
  /** Use the real browser and terminal prompter (the binary); tests pass fakes instead. */
  system?: boolean;
  /** Overrides where the bearer credential comes from (tests, OAuth refresh). */
  credentials?: (ctx: Context) => CredentialSource;
  /**
   * Runs once, just before the HTTP client is first made: the entry point's runtime settings
   * for the HTTP stack (src/runtime/index.ts). Tests leave it out.
   */
  beforeHttp?: () => void;
  /** How the config store writes its files (config/disk.ts): tests play a full disk; svc uses the real one. */
  disk?: StoreDisk;
  /** How bulk runs write their journals (bulk/journal-disk.ts): tests play a full disk; svc uses the real one. */
  journalDisk?: JournalDisk;
  /** Set by forCompletion: the run's one deadline (ms), no retries and no OAuth refresh. */
  deadlineMs?: number;
}

/**
 * Everything a command may touch. Commands never use `process`, `console`, `fetch` or `open`
 * directly; tests build a Context over buffers and call a command's run function in-process.
 */
export interface Context {
  readonly io: IOStreams;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly out: Output;
  readonly clock: Required<Clock>;
  /** How bulk runs write their journals (ContextDeps.journalDisk); undefined: the real disk. */
  readonly journalDisk: JournalDisk | undefined;
  /** The per-request timeout: --timeout, SVC_TIMEOUT, or 30 s. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly debug: boolean;
  /** True when stdin and stdout are terminals, so questions can be asked. */
  readonly canPrompt: boolean;
  readonly browser: Browser;
  readonly prompter: Prompter;
  /** Every secret this run knows; traces, errors and messages are scrubbed of them. */
  readonly secrets: SecretRegistry;
  store(): ConfigStore;
  settings(): Settings;
  /**
   * settings(), for a command that reads the profile itself (its credential, its settings): a
   * profile named by -p / SVC_PROFILE that does not exist is an error (exit 5, did you mean …?).
   */
  profileSettings(): Settings;
  /**
   * profileSettings(), for a command that reads or writes the profile's own settings (config get,
   * set, unset, ls): with none active while other profiles exist, "default" would be a profile
   * nobody made, so that is an error too (exit 5). Flags and env vars alone need no profile.
   */
  ownProfileSettings(): Settings;
  credentials(): CredentialSource;
  /**
   * The credential the profile stores, alone (SVC_TOKEN, which replaces it for requests, aside),
   * bound to its origin as every request's is: a stored key asked about before it is forgotten.
   */
  storedCredentials(): CredentialSource;
  /** The API client for the resolved profile (made once, on first use). */
  api(): Promise<ApiClient>;
  /** The platform client (one method per API operation) over `api()`, made once on first use. */
  platform(): Promise<Platform>;
  /**
   * This run as if `-p name` had been given (its settings, credential and API client), for a
   * command that acts on another profile than its own (`profiles rm NAME`). Close it when done.
   */
  forProfile(name: string, options?: { removing?: boolean }): Context;
  /**
   * This run with `token` as its only credential (not SVC_TOKEN, not the stored one), for a token
   * checked before it is stored (`login --with-token`): a tenant slug is resolved with it too.
   * Close it when done.
   */
  withToken(token: string): Context;
  /**
   * This run bounded by one deadline of `ms`, for a TAB press (`svc __complete`): every request
   * (a tenant slug's GET /v1/me, the lists) under one signal that aborts when it passes, none
   * retried, and an OAuth access token used as stored: never refreshed, so a TAB never waits for
   * a token endpoint nor rotates or loses a session. Close it when done.
   */
  forCompletion(ms: number): Context;
  /** The last change the server accepted in this command, e.g. `POST /v1/users/u/roles → 201`. */
  lastChange(): string | undefined;
  /**
   * Says that this command's output is the only copy of something (a secret the platform shows
   * once) and how to get a usable one, e.g. `the new signing secret`, `rotate again with: …`. A
   * change whose output is then lost (stdout full or closed) says this, not "check the result".
   */
  outputIsOnlyCopyOf(what: string, remedy: string): void;
  /** What `outputIsOnlyCopyOf` said, as the hint of a lost output; undefined when nothing was said. */
  onlyCopyLost(): string | undefined;
  /**
   * Runs `release` when the command ends (close), however it ends: what it holds that must not
   * outlive it (a --secret-file neither written nor discarded: SecretFile.discard).
   */
  atClose(release: () => Promise<void>): void;
  /**
   * Says what the run keeps for its end (the one warning of the lists it read whole: sayKeptTwice);
   * once. Called before the error line of a command that fails, which stays the last line of stderr
   * (README: `--json`'s error is always the last line; review23a F2), and by close.
   */
  sayAtEnd(): Promise<void>;
  /** Runs what atClose was given and releases pooled connections; called when the command ends. */
  close(): Promise<void>;
}

export function outputMode(globals: GlobalOptions, io: IOStreams): OutputMode {
  if (globals.json && globals.ndjson)
    throw new UsageError('--json and --ndjson cannot be combined; pick one');
  if (globals.json) return 'json';
  if (globals.ndjson) return 'ndjson';
  return io.stdoutIsTTY ? 'table' : 'plain';
}

/**
 * `requestLimits`: when --timeout, SVC_TIMEOUT, SVC_MAX_RETRIES and SVC_MAX_RESPONSE_BYTES are
 * read (and a bad one refused): `now` (the default), or `later`, when first needed (ctx.timeoutMs,
 * the API client), for a command that refuses its arguments first (`svc login --with-token TOKEN`:
 * the token on the command line is said before a bad SVC_TIMEOUT).
 */
export function createContext(
  deps: ContextDeps,
  globals: GlobalOptions,
  { requestLimits = 'now' }: { requestLimits?: 'now' | 'later' } = {},
): Context {
  const given = deps.clock;
  const clock: Required<Clock> = {
    now: given ? () => given.now() : Date.now,
    sleep: given?.sleep ? (ms, signal) => given.sleep!(ms, signal) : realSleep,
    timer: given?.timer ? (ms, expire) => given.timer!(ms, expire) : realTimer,
    sleepSync: given?.sleepSync ? (ms) => given.sleepSync!(ms) : sleepSync,
  };
  const mode = outputMode(globals, deps.io);
  let limits:
    | { timeoutMs: number; maxRetries: number | undefined; maxResponseBytes: number | undefined }
    | undefined;
  const readLimits = () =>
    (limits ??= {
      timeoutMs: Math.min(parseTimeout(globals, deps.env), deps.deadlineMs ?? Number.POSITIVE_INFINITY),
      maxRetries: deps.deadlineMs === undefined ? parseMaxRetries(deps.env) : 0,
      maxResponseBytes: parseMaxResponseBytes(deps.env),
    });
  if (requestLimits === 'now') readLimits();
  const secrets = new SecretRegistry();
  // The API client once made: its answers' Date headers tell the platform's clock.
  let madeClient: ApiClient | undefined;
  // Relative times on a terminal ("expires in 60 minutes") are measured from the platform's time
  // once an answer told it (timeAtOffset, the rule --expires-in and --since count by): a grant's
  // expiry and an entry's time are the platform's, and a machine clock hours off must not make a
  // 1 h grant "expire in 4 hours" beside the status the platform gives.
  const out = new Output(
    deps.io,
    mode,
    () => timeAtOffset(madeClient?.serverClockOffsetMs, clock.now()),
    secrets,
    { wide: globals.wide === true, machineNow: () => clock.now() },
  );
  const debug = envSwitch(deps.env, 'SVC_DEBUG') || globals.debug === true;
  const allowInsecureHttp =
    envSwitch(deps.env, 'SVC_ALLOW_INSECURE_HTTP') || globals.allowInsecureHttp === true;
  let store: ConfigStore | undefined;
  let settings: Settings | undefined;
  let credentials: CredentialSource | undefined;
  /** How a stored credential is bound to its origin (auth/credentials.ts). */
  const binding: BindingOptions = {
    profileBaseUrl: () => ctx.store().profile(ctx.settings().profile)?.base_url,
    notice: (message) => out.warn(message),
    // Its hint adds the --base-url of the origin asked for itself.
    loginCommand: () => {
      const { profile, profileSource } = ctx.settings();
      return loginCommand({ profile, profileSource });
    },
  };
  let client: Promise<ApiClient> | undefined;
  let platform: Promise<Platform> | undefined;
  let change: string | undefined;
  let onlyCopy: string | undefined;
  const releases: Array<() => Promise<void>> = [];
  /**
   * The one rule of the lists a run reads whole to find something in them (a bulk run's roles, a
   * role or tenant named, a picker's list; brief paging23 3): an item one repeated was kept once,
   * and the list changed while svc read it (an unstable order can also leave an item out), so the
   * run says it once, a warning after everything else it said but its error line (sayAtEnd: the
   * error stays the last line of stderr, review23a F2). A command that said it itself
   * (Platform.sayTwice: `export`, `plan`, `apply`, `roles ls`, `webhooks ls`, a picker's own list before its
   * prompt: pick.ts chooseFrom) is not told again;
   * nor is a TAB press (forCompletion), whose stderr lands in the prompt.
   */
  const sayKeptTwice = async () => {
    const kept = madeClient?.keptTwice;
    if (kept === undefined || kept.size === 0 || deps.deadlineMs !== undefined) return;
    const { keptNote } = await import('./http/paging.js');
    const note = keptNote(kept);
    kept.clear();
    if (note === undefined) return;
    try {
      out.warn(note);
    } catch {
      // stderr is gone
    }
  };

  const ctx: Context = {
    io: deps.io,
    env: deps.env,
    globals,
    out,
    clock,
    journalDisk: deps.journalDisk,
    get timeoutMs() {
      return readLimits().timeoutMs;
    },
    signal: deps.signal,
    debug,
    secrets,
    canPrompt: deps.io.stdinIsTTY && deps.io.stdoutIsTTY,
    get browser(): Browser {
      // child_process is only loaded when a browser is really opened.
      deps.browser ??= deps.system
        ? { open: async (url) => (await import('./system/browser.js')).systemBrowser(deps.env).open(url) }
        : undefined;
      if (!deps.browser) throw new Error('no browser adapter in this context');
      return deps.browser;
    },
    get prompter(): Prompter {
      deps.prompter ??= deps.system
        ? inquirerPrompter(process.stdin, process.stderr, {
            color: deps.io.colorStderr,
            signal: deps.signal,
          })
        : undefined;
      if (!deps.prompter) throw new Error('no prompter in this context');
      return deps.prompter;
    },
    store() {
      store ??= new ConfigStore(configDir(deps.env), {
        warn: (message) => out.warn(message),
        ...(deps.disk ? { disk: deps.disk } : {}),
      });
      return store;
    },
    settings() {
      if (!settings) {
        const s = ctx.store();
        const profile = resolveProfileName(
          globals,
          deps.env,
          () => s.activeProfile(),
          globals.removingProfile ? (name) => s.hasProfile(name) : undefined,
        );
        settings = resolveSettings(globals, deps.env, profile, s.profile(profile.name));
      }
      return settings;
    },
    profileSettings() {
      const s = ctx.settings();
      const store = ctx.store();
      if ((s.profileSource === 'flag' || s.profileSource === 'env') && !store.hasProfile(s.profile)) {
        throw unknownProfileError(s.profile, store.profileNames(), s.profileSource);
      }
      if (s.profileSource === 'profile' && !store.hasProfile(s.profile)) {
        throw missingActiveProfileError(s.profile, store.profileNames());
      }
      return s;
    },
    ownProfileSettings() {
      const s = ctx.profileSettings();
      const store = ctx.store();
      // None active and no "default" while other profiles exist: "default" would be a profile
      // nobody made (README). Only a first run, with no profile at all, uses (and creates) it.
      // credentials.json is read only when that question needs it (no settings of "default"), so
      // config commands on a profile that has settings work with it unreadable (review25c L1).
      if (s.profileSource !== 'default' || store.profile(s.profile) !== undefined) return s;
      const names = store.profileNames();
      if (names.length > 0 && !store.hasProfile(s.profile)) {
        throw missingActiveProfileError(undefined, names);
      }
      return s;
    },
    credentials() {
      credentials ??= deps.credentials
        ? deps.credentials(ctx)
        : credentialsFor(
            deps.env,
            ctx.store(),
            ctx.settings().profile,
            deps.deadlineMs !== undefined
              ? undefined
              : {
                  api: () => ctx.api(),
                  now: () => clock.now(),
                  defaultTokenUrl: () => tokenUrl(ctx.settings().values.base_url ?? ''),
                  loginCommand: () => loginCommand(ctx.settings()),
                  warn: (message) => out.warn(message),
                  signal: deps.signal,
                },
            binding,
          );
      return credentials;
    },
    storedCredentials: () => storedCredentialsOf(ctx.store(), ctx.settings().profile, binding),
    api() {
      client ??= (async () => {
        const s = ctx.settings();
        const baseUrl = s.values.base_url;
        if (!baseUrl) {
          // -p NAME / SVC_PROFILE naming a profile that does not exist is that, not a missing setting;
          // so is an active profile that is gone, or none active while other profiles exist.
          ctx.ownProfileSettings();
          // A profile named by -p or SVC_PROFILE: `svc sandbox start` would configure "sandbox", not it.
          const p = profileFlag(s);
          throw new UsageError(`no API base URL for profile "${s.profile}"`, {
            hint:
              p === ''
                ? 'run `svc sandbox start` (it configures a "sandbox" profile, unless --seed none), or pass --base-url / set SVC_BASE_URL / `svc config set base_url URL`'
                : `set its server with \`svc ${p}config set base_url URL\` (or \`svc ${p}sandbox start\` for a local sandbox), or pass --base-url / set SVC_BASE_URL`,
          });
        }
        checkBaseUrlPath(baseUrl, s.sources.base_url ?? 'profile', s.profile);
        refuseUrlQueries(s);
        // A profile's org or tenant that is a pasted credential: refused before the first request.
        refuseCredentialSettings(s);
        const { timeoutMs, maxRetries, maxResponseBytes } = readLimits();
        const { ApiClient, verificationOffAsked } = await import('./http/client.js');
        // After the HTTP modules are loaded: V8 compiles code loaded after a flag change without
        // the code cache, and this is still before the first connection compiles llhttp.
        deps.beforeHttp?.();
        // An id in upper case is the same tenant: sent in canonical lower case, for servers that
        // compare ids as they are.
        const tenant = s.values.tenant === undefined ? undefined : canonicalTenantRef(s.values.tenant);
        const from =
          s.sources.tenant === 'flag'
            ? '--tenant'
            : s.sources.tenant === 'env'
              ? 'SVC_TENANT'
              : `profile ${s.profile}`;
        // Node would not verify TLS certificates; svc's connections do all the same (undici.ts).
        if (verificationOffAsked(deps.env)) {
          out.warn(
            "NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored: svc verifies the platform's TLS certificate (and a proxy's); trust a private certificate authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem",
          );
        }
        const made = new ApiClient({
          baseUrl,
          tenant,
          // --tenant acme-payments-eu: X-Tenant-Id carries ids, so a slug is resolved (one GET
          // /v1/me, sent without the header) before the first request that needs it.
          ...(tenant !== undefined && !isTenantId(tenant)
            ? {
                resolveTenant: async (api: ApiClient) => {
                  const { Platform } = await import('./platform/index.js');
                  return (await findTenant(new Platform(api, s), tenant, from)).id;
                },
              }
            : {}),
          org: s.values.org,
          credentials: ctx.credentials(),
          userAgent: `svc/${VERSION}`,
          env: deps.env,
          timeoutMs,
          ...(maxRetries === undefined ? {} : { retry: { maxRetries } }),
          ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
          allowInsecureHttp,
          signal: deps.signal,
          profileFlag: profileFlag(s),
          loginHint: loginHint(s, deps.env),
          otherCredentialHint: otherCredentialHint(deps.env),
          userRequiredHint: () =>
            deps.credentials ? undefined : clientLoginHint(s, deps.env, ctx.store().credential(s.profile)),
          ...(tenant === undefined
            ? {
                missingTenantHint: `no tenant for profile "${s.profile}": pass --tenant, set SVC_TENANT or \`svc ${profileFlag(s)}config set tenant ${TENANT_PLACEHOLDER}\` (see \`${svcCommand(s, 'tenants ls')}\`)`,
              }
            : {}),
          now: () => clock.now(),
          sleep: clock.sleep,
          timer: clock.timer,
          secrets,
          onChange: ({ method, path, status, requestId, created }) => {
            const what = created ? `: created ${created}` : '';
            change = `${method} ${path} answered ${status}${what}${requestId ? ` (request ${requestId})` : ''}`;
          },
          // A long wait before a retry is said to a person; --json and --ndjson keep stderr for the error.
          onWait: (note: string) => {
            if (!out.isMachine) out.notice(note);
          },
          ...(debug ? { debug: (text: string) => out.stderr(text) } : {}),
        });
        madeClient = made;
        return made;
      })();
      return client;
    },
    platform() {
      platform ??= (async () => {
        // Loaded before api() applies the runtime's V8 flags, so it is compiled from the code cache.
        const { Platform } = await import('./platform/index.js');
        return new Platform(await ctx.api(), ctx.settings());
      })();
      return platform;
    },
    forProfile: (name, options) =>
      createContext(deps, {
        ...globals,
        profile: name,
        ...(options?.removing ? { removingProfile: true } : {}),
      }),
    withToken: (token) =>
      createContext({ ...deps, credentials: () => staticCredentials(token, 'standard input') }, globals),
    forCompletion: (ms) => {
      // Linked, not AbortSignal.any (which Node 20 keeps listed on deps.signal for good), and
      // unlinked as the quick Context closes (src/system/linked-signal.ts).
      const deadline = linkedSignal([deps.signal, AbortSignal.timeout(ms)]);
      const quick = createContext({ ...deps, deadlineMs: ms, signal: deadline.signal }, globals);
      quick.atClose(async () => deadline.end());
      return quick;
    },
    lastChange: () => change,
    outputIsOnlyCopyOf(what, remedy) {
      onlyCopy = `its output was the only copy of ${what}, which is lost now; ${remedy}`;
    },
    onlyCopyLost: () => onlyCopy,
    atClose(release) {
      releases.push(release);
    },
    sayAtEnd: sayKeptTwice,
    async close() {
      await sayKeptTwice();
      for (const release of releases.splice(0)) await release().catch(() => undefined);
      if (client) await (await client.catch(() => undefined))?.close();
    },
  };
  return ctx;
}

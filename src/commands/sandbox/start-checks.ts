// What `svc sandbox start` checks before it serves or writes anything: the --host it was given,
// the profile it is about to replace, and what a failed bind means for the user.
import { connect, isIP } from 'node:net';
import { isLoopbackHost, parseHttpUrl } from '../../api/loopback.js';
import { profileOption, shownSetting } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { confirmDestructive } from '../kit.js';

const HOST_FIX = 'use 127.0.0.1, or 0.0.0.0 for every interface';

/**
 * --host as the sandbox can bind it and put it in a URL: an IP address (no zone: a URL cannot
 * carry one) or a host name. Anything else would be bound to (an empty host is every interface)
 * and then fail to make a URL, after the profile was written.
 */
export function parseHost(raw: unknown): string {
  // [::1] is how a URL writes an IPv6 address (and how the sandbox prints its own): the address
  // inside is what is bound.
  const host = String(raw ?? '127.0.0.1').replace(/^\[([0-9A-Fa-f:.]+)\]$/, '$1');
  if (host === '')
    throw new UsageError('--host needs an address, e.g. 127.0.0.1 (or 0.0.0.0 for every interface)');
  const ip = isIP(host) !== 0 && !host.includes('%');
  if (
    !ip &&
    !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host)
  ) {
    throw new UsageError(
      `--host ${JSON.stringify(host)} is not a host name or IP address; for example 127.0.0.1 (or 0.0.0.0 for every interface)`,
    );
  }
  return host;
}

/**
 * An origin an earlier sandbox (or another local server) may have left in a profile: plain http
 * to loopback, or to the host this sandbox is started on (`--host vm` run again).
 */
const isLocalHttp = (url: string | undefined, host: string) => {
  const parsed = url === undefined ? undefined : parseHttpUrl(url);
  if (parsed === undefined || parsed.protocol !== 'http:') return false;
  const name = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return isLoopbackHost(parsed.hostname) || name === host.toLowerCase();
};

/** How long the look at a profile's local server may take: far above a loopback connect's need. */
const ANSWERS_WITHIN_MS = 3000;

/**
 * Whether a server still accepts connections at a local http URL (a sandbox started earlier,
 * still running). A connect that neither succeeds nor fails within ANSWERS_WITHIN_MS counts as
 * not answering.
 */
export function answersAt(url: string): Promise<boolean> {
  const parsed = parseHttpUrl(url);
  if (parsed === undefined) return Promise.resolve(false);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = Number(parsed.port || 80);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(ANSWERS_WITHIN_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The profile the sandbox is about to be saved to, when it belongs to another platform (a base
 * URL or a login that is not a local http server's), or to a local server that still answers (a
 * sandbox started earlier and running, whose banner told the user to use this profile: attack25a
 * F5, `--port 0` after "port in use" took it over without a word): replacing it loses that URL and
 * login (which is not revoked), so it needs -y/--yes or a yes at a prompt. A profile pointing at
 * the address this sandbox is to bind is not looked at: the bind says it is taken (sameAddress:
 * its host too, not the port alone). Returns
 * what to warn of once it is replaced.
 */
export async function confirmReplacing(
  ctx: Context,
  profile: string,
  bind: { host: string; port: number },
): Promise<string | undefined> {
  const { host } = bind;
  const store = ctx.store();
  const base = store.profile(profile)?.base_url;
  const credential = store.credential(profile);
  const baseElsewhere = base !== undefined && !isLocalHttp(base, host);
  const loginElsewhere = credential !== undefined && !isLocalHttp(credential.origin ?? base, host);
  if (!baseElsewhere && !loginElsewhere) {
    if (base === undefined || sameAddress(base, bind) || !(await answersAt(base))) return undefined;
    return confirmRunning(ctx, profile, base, credential !== undefined);
  }
  const loginAt = loginElsewhere ? (credential.origin ?? 'another server') : undefined;
  const there = loginAt !== undefined && loginAt === parseHttpUrl(base ?? '')?.origin;
  const where = base === undefined ? 'has no base URL' : `points at ${shownSetting('base_url', base)}`;
  const login =
    loginAt === undefined ? '' : there ? ' and holds a login there' : ` and holds a login for ${loginAt}`;
  const what = `profile "${profile}" ${where}${login}`;
  // The login is spoken of only where there is one: a profile with a base URL alone loses no login.
  const notRevoked =
    loginAt === undefined
      ? ''
      : ` (its login is not revoked: \`svc ${profileOption(profile)} logout\` first)`;
  const fix = `pick another -p NAME for the sandbox, or pass --yes to replace it${notRevoked}`;
  if (!ctx.globals.yes && !ctx.canPrompt) throw new UsageError(what, { hint: fix });
  await confirmDestructive(
    ctx,
    `The ${what}. Replace it with the sandbox${loginAt === undefined ? '' : ' (that login is not revoked)'}?`,
    what,
  );
  const was = base === undefined ? 'had no base URL' : `pointed at ${shownSetting('base_url', base)}`;
  const lost =
    loginAt === undefined ? '' : `; its login ${there ? 'there' : `for ${loginAt}`} was not revoked`;
  return `profile "${profile}" ${was}${lost}`;
}

/**
 * Whether a URL is at the address this sandbox is about to bind, so that the bind itself says it
 * is taken: its port (0, a free one, is never its) on the same host, or on every interface (`::`
 * takes IPv6 and IPv4, `0.0.0.0` IPv4 only). The same port on another address binds (review25d
 * L3: `--host ::1` beside a sandbox on 127.0.0.1 took its profile over without a word).
 */
function sameAddress(url: string, bind: { host: string; port: number }): boolean {
  const parsed = parseHttpUrl(url);
  if (bind.port === 0 || parsed === undefined || Number(parsed.port || 80) !== bind.port) return false;
  const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const at = bare(parsed.hostname);
  const bound = bare(bind.host);
  return at === bound || bound === '::' || (bound === '0.0.0.0' && !at.includes(':'));
}

/** A profile whose local server still answers: replaced only with --yes or a yes at a prompt. */
async function confirmRunning(ctx: Context, profile: string, base: string, login: boolean): Promise<string> {
  const shown = shownSetting('base_url', base);
  const what = `profile "${profile}" points at ${shown}, where a server still answers (a sandbox started earlier?)`;
  const keep = `keep it: start this one under another profile, \`svc -p NAME sandbox start …\``;
  const dropped = login ? ' (its login there is dropped, not revoked)' : '';
  if (!ctx.globals.yes && !ctx.canPrompt)
    throw new UsageError(what, { hint: `${keep}; or pass --yes to point it at this one${dropped}` });
  await confirmDestructive(ctx, `The ${what}. Point it at this sandbox instead${dropped}?`, what);
  return `profile "${profile}" pointed at ${shown}, which still answers${login ? '; its login there was dropped, not revoked' : ''}: it points at this sandbox now`;
}

/** The bind error of a --host or --port the user gave, as bad input (exit 2). */
export function bindError(
  error: unknown,
  options: { host: string; port: number },
  profile?: { name: string; base: string | undefined },
): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    // The profile's own sandbox is the one there: a second one keeps it only under another profile.
    const ours = profile?.base !== undefined && sameAddress(profile.base, options);
    return new UsageError(`port ${options.port} on ${options.host} is already in use`, {
      hint: ours
        ? `profile "${profile.name}" points at it (a sandbox running?): stop that one, or start another on a free port under another profile: \`svc -p NAME sandbox start --port 0\``
        : 'stop the other server, or pass --port 0 for a free port',
    });
  }
  if (code === 'EACCES') {
    return new UsageError(`port ${options.port} on ${options.host} needs privileges svc does not have`, {
      hint: 'pass a port above 1023, or --port 0 for a free port',
    });
  }
  if (code === 'EADDRNOTAVAIL') {
    return new UsageError(`--host ${options.host} is not an address of this machine`, { hint: HOST_FIX });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_NODATA') {
    return new UsageError(`--host ${options.host} does not resolve to an address`, { hint: HOST_FIX });
  }
  return error;
}

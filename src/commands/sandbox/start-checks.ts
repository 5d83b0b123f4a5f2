// What `svc sandbox start` checks before it serves or writes anything: the --host it was given,
// the profile it is about to replace, and what a failed bind means for the user.
import { isIP } from 'node:net';
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

/**
 * The profile the sandbox is about to be saved to, when it belongs to another platform (a base
 * URL or a login that is not a local http server's): replacing it loses that platform's URL and
 * login (which is not revoked), so it needs -y/--yes or a yes at a prompt. Returns what to warn of
 * once it is replaced.
 */
export async function confirmReplacing(
  ctx: Context,
  profile: string,
  host: string,
): Promise<string | undefined> {
  const store = ctx.store();
  const base = store.profile(profile)?.base_url;
  const credential = store.credential(profile);
  const baseElsewhere = base !== undefined && !isLocalHttp(base, host);
  const loginElsewhere = credential !== undefined && !isLocalHttp(credential.origin ?? base, host);
  if (!baseElsewhere && !loginElsewhere) return undefined;
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
  const was = base === undefined ? 'had no base URL' : `pointed at ${base}`;
  const lost =
    loginAt === undefined ? '' : `; its login ${there ? 'there' : `for ${loginAt}`} was not revoked`;
  return `profile "${profile}" ${was}${lost}`;
}

/** The bind error of a --host or --port the user gave, as bad input (exit 2). */
export function bindError(error: unknown, options: { host: string; port: number }): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new UsageError(`port ${options.port} on ${options.host} is already in use`, {
      hint: 'stop the other server, or pass --port 0 for a free port',
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

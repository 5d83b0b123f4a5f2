import { BlockList, isIP } from 'node:net';
import { isLoopbackHost } from '../api/loopback.js';
import { UsageError } from '../errors.js';

/**
 * Which requests go through a proxy, decided in one place for the dispatcher (undici.ts) and the
 * --debug trace. The settings come from the Context's environment only, never from process.env
 * behind its back: HTTP_PROXY (or http_proxy) for http targets, HTTPS_PROXY (or https_proxy, else
 * the http proxy) for https targets, NO_PROXY (or no_proxy) for hosts to reach directly — entries
 * `host`, `.domain` or `*.domain` (the host and its subdomains), `host:port`, as
 * undici reads them; an address (`fd00::1` bare, as curl takes an IPv6 one, `[fd00::1]:8443`) and
 * an address range (`10.0.0.0/8`) for a target given as an address, as curl and Go read one; and
 * `*` alone for all, as curl reads it (in a list it names no host). ALL_PROXY is not read. A proxy is http://, https:// or SOCKS5 (socks5://,
 * socks5h:// or socks://: undici hands the proxy the target's name, so it resolves it); SOCKS4 is
 * refused by name.
 *
 * A loopback target (127.0.0.0/8, [::1], localhost) is never proxied, whatever NO_PROXY says
 * (undici's EnvHttpProxyAgent proxies it unless NO_PROXY names it): it is this machine, which a
 * proxy elsewhere cannot reach, and svc sends credentials over plain http only to loopback, so
 * the hop to an http proxy would carry a bearer token in clear text. An http target that is not
 * loopback is refused a credential before any proxy is chosen (origin.ts), unless the user passed
 * --allow-insecure-http; an https target through a proxy is a CONNECT tunnel, TLS end to end.
 */
export interface ProxySettings {
  http: URL | undefined;
  https: URL | undefined;
  /** The variables they were read from (HTTP_PROXY or http_proxy, …), for messages. */
  from: { http?: string; https?: string };
  noProxy: NoProxyEntry[] | 'all';
}

interface NoProxyEntry {
  host: string;
  port: number;
  /** An address range (`192.0.2.0/24`, `fd00::/8`), as curl and Go read one: it matches an address target. */
  range?: BlockList;
}

type Env = Record<string, string | undefined>;

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };
/** undici speaks SOCKS5 (it sends the target's name, so the proxy resolves it: socks5h too). */
const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks:', 'socks5:', 'socks5h:']);
const UNSPOKEN_PROTOCOLS = new Set(['socks4:', 'socks4a:']);

/** The proxy settings of `env`; a proxy variable that is not a proxy URL is a usage error. */
export function proxySettings(env: Env): ProxySettings {
  const noProxy = given(env, 'NO_PROXY', 'no_proxy');
  const http = proxyUrl(env, 'HTTP_PROXY', 'http_proxy');
  const https = proxyUrl(env, 'HTTPS_PROXY', 'https_proxy');
  return {
    http: http?.url,
    https: https?.url,
    from: { ...(http ? { http: http.name } : {}), ...(https ? { https: https.name } : {}) },
    noProxy: noProxy?.value.trim() === '*' ? 'all' : noProxyEntries(noProxy?.value ?? ''),
  };
}

/**
 * Where a request to `url` goes: through `proxy` (read from the variable `from`), or directly;
 * `note` says why, for --debug.
 */
export function route(
  url: URL,
  settings: ProxySettings,
): { proxy: URL | undefined; from?: string; note: string | undefined } {
  const secure = url.protocol === 'https:' && settings.https !== undefined;
  const proxy = secure ? settings.https : settings.http;
  const from = secure ? settings.from.https : settings.from.http;
  if (!proxy) return { proxy: undefined, note: undefined };
  if (isLoopbackHost(url.hostname)) {
    return { proxy: undefined, note: `direct, not through the proxy: ${url.hostname} is loopback` };
  }
  if (bypassed(url, settings.noProxy)) {
    return { proxy: undefined, note: `direct, not through the proxy: NO_PROXY names ${url.hostname}` };
  }
  return { proxy, ...(from ? { from } : {}), note: `through the proxy ${proxyName(proxy)}` };
}

/** A proxy URL as it may be shown: scheme, host and port, never a user name or password. */
export function proxyName(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

function given(env: Env, upper: string, lower: string): { name: string; value: string } | undefined {
  for (const name of [upper, lower]) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return undefined;
}

function proxyUrl(env: Env, upper: string, lower: string): { url: URL; name: string } | undefined {
  const found = given(env, upper, lower);
  if (!found) return undefined;
  // `proxy.example.com:3128` is an http proxy, as curl reads it.
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url && UNSPOKEN_PROTOCOLS.has(url.protocol) && url.hostname !== '') {
    throw new UsageError(`${found.name} is a ${url.protocol}// proxy, which svc cannot use`, {
      hint: 'use an http://, https:// or socks5:// proxy, or unset it to connect directly',
    });
  }
  if (!url || !PROXY_PROTOCOLS.has(url.protocol) || url.hostname === '') {
    // The value is not repeated: it may hold the proxy's password.
    throw new UsageError(`${found.name} is not a proxy URL`, {
      hint: `set it like http://proxy.example.com:3128, or unset it to connect directly`,
    });
  }
  return { url, name: found.name };
}

function noProxyEntries(value: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = [];
  for (const entry of value.split(/[,\s]/)) {
    if (!entry) continue;
    // An address range was taken for a host name and never matched: the target went through the
    // proxy when the user had said "direct" (attack24a F8).
    const cidr = /^\[?([0-9a-f:.]+)\]?\/(\d{1,3})$/i.exec(entry);
    const family = cidr ? isIP(cidr[1]!) : 0;
    if (cidr && family !== 0 && Number(cidr[2]) <= (family === 4 ? 32 : 128)) {
      const range = new BlockList();
      range.addSubnet(cidr[1]!, Number(cidr[2]), family === 4 ? 'ipv4' : 'ipv6');
      entries.push({ host: entry.toLowerCase(), port: 0, range });
      continue;
    }
    // An address, bare (`fd00::1`, `192.0.2.2`, as curl asks for IPv6 ones) or with a port
    // (`[fd00::1]:8443`, `192.0.2.2:8443`): matched as the address, whatever its spelling. A bare
    // IPv6 one was read as host `fd00:` port 1 and never matched (review24c L5).
    const address = addressEntry(entry);
    if (address) {
      const range = new BlockList();
      range.addAddress(address.ip, isIP(address.ip) === 4 ? 'ipv4' : 'ipv6');
      entries.push({ host: entry.toLowerCase(), port: address.port, range });
      continue;
    }
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    entries.push({ host, port: parsed ? Number.parseInt(parsed[2]!, 10) : 0 });
  }
  return entries;
}

/** A NO_PROXY entry that is one address, with its port (0: any), or undefined. */
function addressEntry(entry: string): { ip: string; port: number } | undefined {
  if (isIP(entry) !== 0) return { ip: entry, port: 0 };
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6 && isIP(v6[1]!) === 6) return { ip: v6[1]!, port: v6[2] ? Number(v6[2]) : 0 };
  const v4 = /^([\d.]+):(\d+)$/.exec(entry);
  if (v4 && isIP(v4[1]!) === 4) return { ip: v4[1]!, port: Number(v4[2]) };
  return undefined;
}

function bypassed(url: URL, noProxy: ProxySettings['noProxy']): boolean {
  if (noProxy === 'all') return true;
  const host = url.hostname.toLowerCase();
  const address = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(address);
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return noProxy.some((entry) =>
    entry.range
      ? (entry.port === 0 || entry.port === port) &&
        family !== 0 &&
        entry.range.check(address, family === 4 ? 'ipv4' : 'ipv6')
      : (entry.port === 0 || entry.port === port) && (host === entry.host || host.endsWith(`.${entry.host}`)),
  );
}

/**
 * What a failed connection was, in words and in what it means for the request (send.ts): a
 * proxy's refusal or failure, a TLS certificate refused (attack24a F3: the server was reached and
 * answered the handshake, so "cannot reach … is the server running?" was wrong, and the fix is the
 * certificate's or the trust's; not tried again, since a certificate does not change between
 * attempts; nothing was sent, since a request is written only on a connection whose handshake
 * passed).
 */
import { STATUS_CODES } from 'node:http';
import { ConnectionError } from './errors.js';
import { proxyName } from './proxy.js';
import { PROXY_CLOSED, proxyDialFailed } from './undici.js';

/** Node's codes for a certificate whose issuer is not trusted (none of its CAs is known to Node). */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

const TRUST_HINT =
  "if it is signed by your organisation's own certificate authority, give that CA's certificate to svc with NODE_EXTRA_CA_CERTS=/path/to/ca.pem";

/**
 * The server whose certificate it is: the platform (svc's own requests, named by --base-url) or the
 * target of a `webhooks listen` forward (--forward-to: the user's own app, often self-signed, for
 * which NODE_TLS_REJECT_UNAUTHORIZED=0 is honoured, listen.ts; s24 fixrc noted it worded by Node).
 */
export type Server = 'platform' | 'forward';

const SERVERS = {
  platform: { name: (origin: string) => origin, who: 'the server', where: 'the base URL', trust: TRUST_HINT },
  forward: {
    name: (origin: string) => `${origin} (--forward-to)`,
    who: 'the target',
    where: '--forward-to',
    trust:
      "give its certificate (or its CA's) to svc with NODE_EXTRA_CA_CERTS=/path/to/cert.pem, or set NODE_TLS_REJECT_UNAUTHORIZED=0, which svc honours for forwards only (they carry no credentials)",
  },
} as const;

/** What is wrong with the certificate, and what fixes it; undefined when `code` is not a certificate's. */
function problem(
  code: string,
  whose: string,
  where: string,
  trust: string,
): { what: string; fix: string } | undefined {
  if (UNTRUSTED.has(code)) return { what: 'is not trusted', fix: trust };
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      what: code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet',
      fix: `${whose} certificate must be renewed, or this machine's clock is wrong`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return { what: 'is for another host name', fix: `check the host name in ${where}` };
  }
  if (code === 'CERT_REVOKED')
    return { what: 'has been revoked', fix: `${whose} certificate must be replaced` };
  if (/CERT|INVALID_CA|PATH_LENGTH_EXCEEDED|INVALID_PURPOSE/.test(code)) {
    return { what: 'was not accepted', fix: `check ${whose} certificate, or NODE_EXTRA_CA_CERTS` };
  }
  return undefined;
}

/**
 * The error for a TLS alert the other side sent during the handshake (OpenSSL's
 * `ERR_SSL_…_ALERT_…` codes): it refused svc's side (a client certificate it wants, a TLS version
 * or cipher), not its own certificate, and the same handshake is refused again (review24c L3:
 * said as "the TLS certificate of … was not accepted", or as a raw OpenSSL line with "is the
 * server running?", and retried). Undefined for any other failure.
 */
function handshakeRefused(code: string, of: string, error: unknown): ConnectionError | undefined {
  // Node 20's OpenSSL says ERR_SSL_SSLV3_ALERT_…, Node 24's ERR_SSL_SSL/TLS_ALERT_… (and only a raw
  // OpenSSL line for a message): the alert is named from the code, the same words on both.
  const alert = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13|SSL\/TLS)_ALERT_(.+)$/.exec(code);
  if (!alert) return undefined;
  const said = alert[1]!.toLowerCase().replaceAll('_', ' ');
  return new ConnectionError(`${of} refused the TLS handshake: its alert "${said}" (${code})`, {
    hint: 'it may require a client certificate, which svc does not send, or a TLS version or cipher svc does not offer: check its TLS settings; nothing was sent',
    cause: error,
    mayHaveArrived: false,
    retryable: false,
  });
}

/**
 * The error for a failed TLS handshake whose certificate was refused (`code`, Node's), or
 * undefined for any other failure. `of` is the server as named, or the proxy (its own
 * certificate); `where` is the setting that names it (--base-url, --forward-to, or the proxy's
 * variable); `trust` the fix for a certificate whose issuer is not trusted.
 */
function certificateFailure(
  code: string,
  reason: string,
  of: string,
  named: { whose: string; where: string; trust: string },
  error: unknown,
): ConnectionError | undefined {
  const found = problem(code, named.whose, named.where, named.trust);
  if (!found) return undefined;
  return new ConnectionError(`the TLS certificate of ${of} ${found.what}: ${reason}`, {
    hint: `${found.fix}; nothing was sent`,
    cause: error,
    mayHaveArrived: false,
    retryable: false,
  });
}

/**
 * A request through a proxy that was never put on a connection (one that was is send.ts's
 * failedAfterSending): every connection goes to the proxy, so a refused
 * or unresolvable connection is the proxy's, and a refused login (SOCKS5, or 407 to an http
 * proxy's tunnel) is not tried again: the same password would be refused again, and proxies lock
 * accounts that keep trying. The proxy is named without its user name and password.
 */
export function proxyFailure(
  url: URL,
  proxy: { url: URL; from: string | undefined },
  error: unknown,
): ConnectionError {
  const code = errorCode(error) ?? '';
  const reason = networkReason(error);
  const named = namedProxy(proxy);
  const variable = proxy.from ?? 'the proxy settings';
  // undici's words for a tunnel the proxy would not open: `Proxy response (502) !== 200 when HTTP Tunneling`.
  const refusal = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(
    (error as Error)?.message ?? '',
  );
  const status = refusal ? Number(refusal[1]) : undefined;
  const answered = status && `answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  if (status === 407) {
    return new ConnectionError(`${named} refused the tunnel to ${url.host}: it ${answered}`, {
      hint: `check the proxy, its user name and password in ${variable}, or NO_PROXY`,
      cause: error,
      mayHaveArrived: false,
      retryable: false,
    });
  }
  if (status) {
    // A proxy that could not reach the server (5xx) may next time; one that will not let svc
    // through (403, …) will not within seconds (attack24a F6).
    const transient = status >= 500 || status === 408 || status === 429;
    return new ConnectionError(`${named} ${answered} to the tunnel for ${url.host}`, {
      hint: transient
        ? `the proxy could not reach ${url.host}: check the host and port of the base URL, the proxy in ${variable}, or NO_PROXY; nothing was sent`
        : `the proxy does not let svc through to ${url.host}: check the proxy in ${variable} with its administrator, or NO_PROXY; nothing was sent`,
      cause: error,
      mayHaveArrived: false,
      retryable: transient,
    });
  }
  if (code.startsWith('UND_ERR_SOCKS5_AUTH')) {
    return new ConnectionError(`${named} refused the request to ${url.origin}: ${reason}`, {
      hint: `check the proxy, its user name and password in ${variable}, or NO_PROXY`,
      cause: error,
      mayHaveArrived: false,
      retryable: false,
    });
  }
  if (code === PROXY_CLOSED) {
    // No tunnel was opened: nothing reached the server. Each attempt made one connection (undici.ts).
    return new ConnectionError(`${named} closed the connection without answering, for ${url.origin}`, {
      hint: `check that ${variable} names an HTTP proxy that accepts CONNECT, or NO_PROXY`,
      cause: error,
      mayHaveArrived: false,
    });
  }
  if (NEVER_SENT.has(code)) {
    return new ConnectionError(`cannot reach ${named} for ${url.origin}: ${reason}`, {
      hint: `check the proxy in ${variable}, or NO_PROXY`,
      cause: error,
      mayHaveArrived: false,
    });
  }
  return new ConnectionError(`cannot reach ${url.origin} through ${named}: ${reason}`, {
    hint: `is the server running? check --base-url, and the proxy in ${variable}`,
    cause: error,
    mayHaveArrived: false,
  });
}

/**
 * A connection that failed once the request was on it (reset, closed, an answer that is not HTTP):
 * the server was reached and may have the request, so not "cannot reach" (attack24a F7).
 */
export function failedAfterSending(
  url: URL,
  proxy: { url: URL; from: string | undefined } | undefined,
  error: unknown,
): ConnectionError {
  const through = proxy ? `, through ${namedProxy(proxy)},` : '';
  return new ConnectionError(
    `the connection to ${url.origin}${through} failed after the request was sent: ${networkReason(error)}`,
    {
      hint: 'try again; if it keeps happening, check the server or the proxy between',
      cause: error,
      mayHaveArrived: true,
    },
  );
}

/**
 * The error for a TLS handshake refused over the server's certificate, or the proxy's own (an
 * https:// proxy's dial, undici.ts proxyDialFailed), or by the other side's alert (handshakeRefused);
 * undefined for any other failure. undici hands
 * a proxy's certificate for another name on as the cause of its own error. `server` says whose
 * `url` is: the platform's, or a forward's target.
 */
export function certificateRefused(
  url: URL,
  proxy: { url: URL; from: string | undefined } | undefined,
  error: unknown,
  server: Server = 'platform',
): ConnectionError | undefined {
  const words = SERVERS[server];
  const name = words.name(url.origin);
  const cause = (error as { cause?: unknown })?.cause;
  for (const failure of [error, cause]) {
    const code = (failure as { code?: unknown })?.code;
    if (typeof code !== 'string') continue;
    // Node's own advice after its reason ("; if the root CA is installed locally, try running
    // Node.js with --use-system-ca", Node 24) is left out: svc says the fix that works for svc.
    const reason = networkReason(failure).replace(/; [^()]*(?= \(|$)/u, '');
    const theirs = proxy && proxyDialFailed(error);
    const alert = theirs
      ? handshakeRefused(code, namedProxy(proxy), error)
      : handshakeRefused(
          code,
          `${words.who} ${name}${proxy ? `, reached through ${namedProxy(proxy)},` : ''}`,
          error,
        );
    if (alert) return alert;
    const refused = theirs
      ? certificateFailure(
          code,
          reason,
          namedProxy(proxy),
          { whose: "the proxy's", where: proxy.from ?? 'the proxy settings', trust: TRUST_HINT },
          error,
        )
      : certificateFailure(
          code,
          reason,
          proxy ? `${name}, reached through ${namedProxy(proxy)},` : name,
          { whose: `${words.who}'s`, where: words.where, trust: words.trust },
          error,
        );
    if (refused) return refused;
  }
  return undefined;
}

/** The proxy as errors name it: its URL without user name and password, and the variable that set it. */
export function namedProxy(proxy: { url: URL; from: string | undefined }): string {
  return `the proxy ${proxyName(proxy.url)}${proxy.from ? ` (${proxy.from})` : ''}`;
}

/** Failures to connect at all (to the proxy, when there is one): named as the proxy's in proxyFailure. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return (error as { code?: string })?.code ?? cause?.code;
}

export function networkReason(error: unknown): string {
  const code = errorCode(error);
  const message = (error as Error)?.message ?? String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * A URL as a person reads it on a terminal. A host written with letters outside ASCII
 * (`pаy.example`, whose `а` is Cyrillic) looks like its ASCII look-alike, but a browser goes to its
 * punycode form (`xn--py-7kc.example`), as an authorization code sent to a redirect URI does: so
 * such a URL is shown with that host beside it, as browsers show mixed-script hosts
 * (findings-attack19 F9). Pipes and JSON keep the URL as the platform has it.
 *
 * One rule for where the mark goes: text that is never cut (a record, a plan line, a message) has
 * the URL as written with the host beside it; a table cell, which a narrow terminal cuts from the
 * right, has the punycode host in place of the written one (asciiHostUrls), so no cut can leave
 * `https://pаy.example/…` looking like `https://pay.example/…` (attack22b F1): a cell shows the
 * host the browser reaches or nothing of the host at all.
 */

import { redactUrlText } from '../api/secret-names.js';

/** The host part of a URL as written: after `scheme://` and any `user@`, before a port, path, query or fragment. */
const HOST = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/?#:]*)/;

/** `https://pаy.example/cb (host xn--py-7kc.example)`; a URL whose host is ASCII (or no URL) as it is. */
export function withAsciiHost(url: string): string {
  const host = HOST.exec(url)?.[1];
  if (host === undefined || /^[\u0000-\u007f]*$/.test(host)) return url;
  try {
    return `${url} (host ${new URL(url).hostname})`;
  } catch {
    return `${url} (host not a valid name)`;
  }
}

/**
 * A URL a message names (a question, a ✓, a warning or an error): its user name and password
 * masked (redactUrlText), a host that is not ASCII beside its punycode form. A command to run
 * keeps the URL exact instead.
 */
export function urlInWords(url: string): string {
  return withAsciiHost(redactUrlText(url));
}

/**
 * `https://xn--py-7kc.example/cb` for `https://pаy.example/cb`: the URL with its host as a browser
 * reaches it, the rest as written; a URL whose host is ASCII (or no URL) as it is. A host that is
 * no valid name has the mark before the URL, where a cut from the right cannot reach it first.
 */
export function withAsciiHostInPlace(url: string): string {
  const found = HOST.exec(url);
  const host = found?.[1];
  if (found === null || host === undefined || /^[\u0000-\u007f]*$/.test(host)) return url;
  const start = found[0].length - host.length;
  let ascii: string;
  try {
    ascii = new URL(url).hostname;
  } catch {
    return `(host not a valid name) ${url}`;
  }
  return `${url.slice(0, start)}${ascii}${url.slice(found[0].length)}`;
}

/** withAsciiHostInPlace for a table cell's value: a URL or a list of them (anything else as it is). */
export function asciiHostUrls(value: unknown): unknown {
  if (typeof value === 'string') return withAsciiHostInPlace(value);
  return Array.isArray(value) ? value.map(asciiHostUrls) : value;
}

/** withAsciiHost for a value that is a URL or a list of them (anything else as it is). */
export function withAsciiHosts(value: unknown): unknown {
  if (typeof value === 'string') return withAsciiHost(value);
  return Array.isArray(value) ? value.map(withAsciiHosts) : value;
}

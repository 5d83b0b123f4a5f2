/** The path `svc api` sends, checked so that it names the endpoint it reads as. */
import { codePoint } from '../../api/characters.js';
import { OPERATIONS, operationIdOf } from '../../api/operations.js';
import { isTenantId } from '../../api/tenant-id.js';
import { UsageError } from '../../errors.js';

/**
 * A path is sent as given, so none of its segments may be `.` or `..` (or `%2e` spellings of
 * them): a URL resolves them, and `DELETE /v1/rules/../roles/R` would delete a role. The path is
 * checked as the URL parser reads it (joinUrl sets it as the URL's pathname): up to the first
 * `?`, with a `#` as part of the path (it becomes %23, and what follows is still path), and
 * backslashes as slashes. The parser drops tabs and newlines (`.<TAB>.` is `..`) and changes
 * other control characters, so a path with one is refused outright. A `..;x` segment is refused
 * too: servers that drop `;` parameters (Java servlet containers) resolve it as `..`. Last, the
 * URL svc would build is compared with the path segment by segment, so a spelling this misses
 * cannot reach another endpoint either. Refused as `svc records` refuses such ids, naming the
 * endpoint it would have called.
 */
export function withoutDotSegments(path: string): string {
  const control = /[\u0000-\u001f\u007f]/.exec(path)?.[0];
  if (control !== undefined) {
    throw new UsageError(
      `the path has a control character (${codePoint(control)}), which a URL drops or changes; remove it`,
    );
  }
  const bare = path.split('?')[0]!;
  const segments = bare.split(/[/\\]/);
  const refuse = (dot: string, how: string) => {
    throw new UsageError(`the path has a ${JSON.stringify(dot)} segment, ${how}`, {
      hint: 'give the path it names, without dot segments',
    });
  };
  const sent = new URL('http://svc.invalid');
  sent.pathname = bare;
  const dot = segments.find((segment) => /^(\.|%2e){1,2}$/i.test(segment));
  if (dot !== undefined) refuse(dot, `which a URL resolves: it would call ${sent.pathname}`);
  const param = segments.find((segment) => /^(\.|%2e){1,2};/i.test(segment));
  if (param !== undefined) refuse(param, 'which a server that drops ";" parameters reads as ".."');
  // Each segment as the URL encodes it on its own (after "x", so it is never a dot segment).
  const alone = new URL('http://svc.invalid');
  const expected = segments
    .map((segment) => {
      alone.pathname = `/x${segment}`;
      return alone.pathname.slice(2);
    })
    .join('/');
  if (sent.pathname !== expected) {
    throw new UsageError(`the URL resolves the path into another one: it would call ${sent.pathname}`, {
      hint: 'give the path it names, without dot segments',
    });
  }
  return path;
}

/**
 * The tenant a path names itself (`/v1/tenants/{id}` and below), decoded; undefined for any other
 * path. `svc api` sends it as X-Tenant-Id in place of the profile's: the platform wants the two to
 * agree, and the path is what the user asked for. Null when the segment does not decode to a
 * tenant id (a slug, say: X-Tenant-Id carries ids, as the reference has it): no X-Tenant-Id then,
 * rather than the profile's contradicting the path or a slug the header does not take; the path
 * alone decides.
 */
export function tenantOfPath(path: string): string | null | undefined {
  const tenant = tenantNamedByPath(path);
  if (tenant === undefined) return /^\/v1\/tenants\/[^/\\?#]/.test(path) ? null : undefined;
  return isTenantId(tenant) ? tenant : null;
}

/**
 * The tenant segment of a /v1/tenants/{tenant}/… path, decoded, an id or a slug (for the question
 * before a call: acts-where.ts); undefined for any other path, or one that does not decode.
 */
export function tenantNamedByPath(path: string): string | undefined {
  const segment = /^\/v1\/tenants\/([^/\\?#]+)(?:[/\\?#]|$)/.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * An endpoint that authenticates the client itself (the OAuth token, revocation and device
 * authorization endpoints: public in the operations table): RFC 6749 §2.3 has a client prove
 * itself with client_secret_basic or client_secret_post, and a Bearer header there is no client
 * authentication. `svc api` sends the profile's access token to none of them: it is not theirs to
 * see, and the sandbox refuses a request that carries it.
 */
export function authenticatesItsClient(method: string, path: string): boolean {
  const id = operationIdOf(method, path.split(/[?#]/)[0]!);
  return id !== undefined && OPERATIONS[id]!.access === 'public';
}

/**
 * The operations besides a DELETE that svc's own verbs ask before, as the contract's destructive
 * actions (`--yes` "required for them when stdin is not a TTY"), each with what it does:
 * `oauth rotate-secret` (the client's current secret stops working at once). A raw call to one
 * does it as surely as the verb (brief fixlists 3). Revoking a grant or a key and discarding a
 * dead-letter entry are DELETEs (asked as every DELETE is); a webhook's rotation is not asked by
 * its verb (the replaced secret keeps signing for a while), nor an OAuth token's revocation by
 * `logout` (the caller's own session).
 */
const DESTRUCTIVE: Readonly<Record<string, string>> = {
  oauth_clients_rotate_secret: "It rotates the client's secret: the current one stops working at once",
};

/**
 * The path a call reaches, as a server routes it: the pathname of the URL svc sends (joinUrl sets
 * the path as the URL's pathname: `\` becomes `/`, review29b M3), its escapes of ASCII characters
 * decoded but for `%2F` and `%5C`, which a router takes as part of a segment (judged as sent).
 * Compared without case by destructiveCall: a server may route `/V1/…` alike.
 */
function routedPath(path: string): string {
  const sent = new URL('http://svc.invalid');
  sent.pathname = path.split('?')[0]!;
  return sent.pathname.replace(/%([0-7][0-9a-f])/gi, (encoded, hex: string) =>
    /^(2f|5c)$/i.test(hex) ? encoded : String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/**
 * What a call svc asks before sending does, or undefined for a call it sends unasked: any DELETE
 * (it deletes whatever its path names), and a DESTRUCTIVE operation's method to a path of its form
 * (a trailing `/` too), judged on the path as typed up to `?` or `#` and on the path the URL sends
 * (routedPath: a backslash for a slash, an escaped letter, another case), one rule: either asks.
 */
export function destructiveCall(method: string, path: string): string | undefined {
  if (method === 'DELETE') return '';
  const paths = [path.split(/[?#]/)[0]!, routedPath(path)];
  for (const [id, what] of Object.entries(DESTRUCTIVE)) {
    const rule = OPERATIONS[id]!;
    const form = new RegExp(`^${rule.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
    if (rule.method === method.toUpperCase() && paths.some((bare) => form.test(bare))) return what;
  }
  return undefined;
}

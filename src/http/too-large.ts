/** What a 431 (request headers too large) answer's hint says is too large, and where it came from. */
import { formatBytes } from './response.js';

/** Where svc's own request headers come from, for the hint of a 431 (headers too large). */
const HEADER_SOURCES: Record<string, [name: string, source: string]> = {
  authorization: ['Authorization', "from the credential (SVC_TOKEN or the profile's)"],
  'x-svc-org-id': ['X-SVC-Org-Id', "from the organisation (--org, SVC_ORG or the profile's org)"],
  'x-tenant-id': ['X-Tenant-Id', "from the tenant (--tenant, SVC_TENANT or the profile's tenant)"],
};

/**
 * The fix half of a 431, since the server's answer cannot say which value of the user's was too
 * long (one server allows 8 KiB, another 16, so svc does not refuse a size itself): the URL when
 * its path and query are larger than any header; else the largest header and where it came
 * from (a header given with `svc api -H` is named so, whatever its name), or, when no header makes half of the total, that the headers add up, and how many of
 * them came from -H. `given` holds the lower-case names of the -H headers.
 */
export function largestPartHint(
  sent: Record<string, string>,
  given: ReadonlySet<string>,
  target: string,
): { hint?: string } {
  const sizes = Object.entries(sent).map(
    ([key, value]) => [key, Buffer.byteLength(`${key}: ${value}\r\n`)] as const,
  );
  const [largest] = [...sizes].sort(([, a], [, b]) => b - a);
  // The request line counts too (Node's limit and the sandbox's): a 100 KB id in the path was
  // blamed on a 751-byte Authorization header (exploratory test s12, contract12 #4).
  const url = Buffer.byteLength(target);
  if (url > (largest?.[1] ?? 0)) {
    return {
      hint: `the largest part of the request is its URL (path and query: ${formatBytes(url)}, more than every header): an id or a query value this long is not one the server knows; check what was passed`,
    };
  }
  if (largest === undefined) return {};
  const total = sizes.reduce((sum, [, size]) => sum + size, 0);
  const [key] = largest;
  if (largest[1] * 2 >= total) {
    const [name, source] = HEADER_SOURCES[key] ?? [key, 'set by svc'];
    return {
      hint: `the largest header svc sent is ${name} (${formatBytes(Buffer.byteLength(sent[key] ?? ''))}), ${given.has(key) ? 'given with -H' : source}: shorten it`,
    };
  }
  const fromFlag = sizes.filter(([name]) => given.has(name));
  const flagged = fromFlag.reduce((sum, [, size]) => sum + size, 0);
  const part =
    fromFlag.length > 0
      ? `, ${fromFlag.length} of them (${formatBytes(flagged)}) given with -H: send fewer or shorter ones`
      : '';
  return {
    hint: `the headers are too large together, none alone: svc sent ${sizes.length} headers, ${formatBytes(total)} in all${part}`,
  };
}

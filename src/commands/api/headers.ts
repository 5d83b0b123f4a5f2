/** `svc api -H 'Name: value'`: the headers given, each once. */

import { controlIn, nonAsciiIn } from '../../api/characters.js';
import { UsageError } from '../../errors.js';
import { isSecretHeader, MASK } from '../../http/redact.js';
import { quoted } from '../../output/format.js';

/**
 * A malformed -H as its error shows it: whole, unless it starts with a secret header's name
 * (`X-Api-Key=…`, `Cookie …`), whose value is masked as --debug masks a well-formed one: the
 * error may go to a CI log where the command line is not shown (review s14, secrets 2). Every
 * other error about a header masks a secret header's value alike (splitHeader).
 */
function shownHeader(raw: string): string {
  const lead = /^(\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[\s:=]*)/.exec(raw);
  return lead && isSecretHeader(lead[2]!) && raw.length > lead[1]!.length ? `${lead[1]}${MASK}` : raw;
}

function splitHeader(raw: string): [string, string] {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(raw);
  if (!match) throw new UsageError(`-H takes 'Name: value', got ${quoted(shownHeader(raw))}`);
  // Without the trailing space or tab HTTP strips from a value (RFC 9110 §5.5): what is sent is
  // what the server reads, and an Idempotency-Key copied into the body is the same key.
  const value = match[2]!.replace(/[ \t]+$/, '');
  // A control character (a tab aside, which HTTP allows): undici refuses to send it, which read
  // as "cannot reach … is the server running?" (attack24c F1).
  const what = `-H ${match[1]}`;
  // A secret header's value is masked in these errors as in the malformed-line one (shownHeader):
  // only the character and its place are said (attack25b M1: an X-Api-Key was printed whole).
  const shown = isSecretHeader(match[1]!) ? MASK : undefined;
  const control = controlIn(what, value, 'give the value without it; nothing was sent', { tab: true, shown });
  if (control !== undefined) throw new UsageError(control, { code: 'invalid_header' });
  // Past U+007F: refused by the rule every value svc puts in a header follows (nonAsciiIn).
  const wide = nonAsciiIn(
    what,
    value,
    'give it as ASCII (percent- or base64-encoded, as the server expects); nothing was sent',
    shown,
  );
  if (wide !== undefined) throw new UsageError(wide, { code: 'invalid_header' });
  return [match[1]!.toLowerCase(), value];
}

/**
 * The -H headers by lower-case name. svc sends each header once, so a name given twice (in any
 * letter case) is refused rather than one value dropped unsaid; a platform reads X-Tenant-Id,
 * Authorization or Idempotency-Key once, and the sandbox refuses two.
 */
export function headersGiven(raws: string[]): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  const spelled = new Map<string, string>();
  for (const raw of raws) {
    const [name, value] = splitHeader(raw);
    const first = spelled.get(name);
    if (first !== undefined) {
      throw new UsageError(`-H ${first} is given twice; give it once (svc sends each header once)`);
    }
    spelled.set(name, raw.slice(0, name.length));
    headers[name] = value;
  }
  return headers;
}

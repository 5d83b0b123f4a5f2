import { keepJsonAsWritten } from '../api/json-as-written.js';
import { isZeroDecimal, jsonDepth, notAsWritten, pathLabel } from '../api/json-text.js';
import { isSecretField } from '../api/secret-names.js';
import { UsageError } from '../errors.js';
import { strictUtf8 } from './input.js';

/**
 * The deepest JSON svc reads from a user: far beyond any record or API body (the sandbox takes
 * 64 levels), and far below what would overflow the stack of the code that sends or compares it.
 */
export const MAX_USER_JSON_DEPTH = 512;

/**
 * The words for JSON text nested deeper than MAX_USER_JSON_DEPTH (`what` names it), or undefined:
 * the one depth rule of what svc reads from a user, bulk rows included (code that describes or
 * sends a deeper value would overflow the stack).
 */
export function tooDeep(text: string, what: string): string | undefined {
  const depth = jsonDepth(text);
  if (depth <= MAX_USER_JSON_DEPTH) return undefined;
  return `${what} nests ${depth} levels deep; svc sends JSON at most ${MAX_USER_JSON_DEPTH} levels deep`;
}

/**
 * JSON a user gives svc (records --data/--data-file, `svc api --input` and -F), read so that what
 * svc sends is what the user meant, or refused with one line (exit 2) before anything is sent:
 * bytes that are not UTF-8 (named by offset, never replaced with U+FFFD), nesting deeper than
 * MAX_USER_JSON_DEPTH, a key given twice in an object (JSON.parse keeps the last without a
 * word; a reader of the file sees the first). A number a double cannot hold as written
 * (9007199254740993, 1.0000000000000001, -0, 1e400) is taken: every number goes out as written
 * (json-as-written.ts bodyText, also in a copy of the value) and is compared by its text, so an
 * edited `records get --json` copy holding a number svc printed as it came is a patch (attack27b
 * F3: it was refused, with advice to make the number a string, which would change the field's
 * type); the platform judges it. `what` names the input in messages, `whole` the value itself
 * when it is the one at fault (a -F field's name).
 */
export function parseUserJson(input: string | Buffer, what: string, whole = 'the value'): unknown {
  const text = typeof input === 'string' ? input : strictUtf8(input, what);
  const deep = tooDeep(text, what);
  if (deep !== undefined) throw new UsageError(deep);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${what} is not valid JSON${parseErrorPlace(text, error)}; check it with a JSON validator`,
    );
  }
  const problem = jsonContentProblem(text, whole, false);
  if (problem !== undefined) throw new UsageError(`${what}: ${problem}`);
  // Sent as written (100.50 stays 100.50), also with svc's idempotency key put in (http/body.ts).
  return keepJsonAsWritten(value, text);
}

/**
 * Where JSON.parse stopped, as a line and column, never V8's message: that quotes the text
 * around the error, which may be a secret in single quotes or without any (review s11, leaks 3).
 */
function parseErrorPlace(text: string, error: unknown): string {
  const at = /at position (\d+)/.exec((error as Error).message)?.[1];
  if (at === undefined) return /Unexpected end/.test((error as Error).message) ? ' (it ends too soon)' : '';
  const before = text.slice(0, Number(at));
  const line = before.split('\n').length;
  const column = Number(at) - before.lastIndexOf('\n');
  return ` (at line ${line}, column ${column})`;
}

/**
 * What in JSON text JSON.parse took would not be sent as written: the first key given twice in
 * an object, or (with `numbers`: a bulk row, whose values svc re-encodes) number a double cannot
 * hold (in words, with the fix); undefined when nothing. `whole` names the value itself when it
 * is the one at fault.
 */
export function jsonContentProblem(text: string, whole = 'the value', numbers = true): string | undefined {
  const found = notAsWritten(text, numbers);
  if (found === undefined) return undefined;
  const { path } = found;
  if (found.kind === 'twice') {
    return `"${found.key}" is given twice${path.length === 0 ? '' : ` in "${pathLabel(path)}"`}; keep one`;
  }
  const field = path.length === 0 ? whole : `"${pathLabel(path)}"`;
  // A number under a secret's name is not repeated (review s11, leaks 4): --debug masks it.
  const last = path[path.length - 1];
  const secret = typeof last === 'string' && isSecretField(last);
  const [shown, fix, would] = secret
    ? ['a number', 'give it as a string', 'another number']
    : [found.raw, `give it as a string ("${found.raw}")`, found.becomes];
  if (found.becomes === 'infinite')
    return `${field} is ${shown}, beyond the range of a number svc can send; ${fix}`;
  // 2e-324 has no sign: it underflows (attack27b F5: it was called "a zero with a sign").
  if (found.becomes === '0' && !isZeroDecimal(found.raw))
    return `${field} is ${shown}, too small for a number svc can send (it would be 0); ${fix}`;
  return `${field} is ${shown}, which svc would send as ${would} (${found.becomes === '0' ? 'JSON writes a zero without its sign' : 'a number keeps about 16 digits'}); ${fix}`;
}

import { doubleOf, type JsonPath, jsonDepth, pathLabel, scanJson } from '../api/json-text.js';
import { UsageError } from '../errors.js';
import { strictUtf8 } from './input.js';

/**
 * The deepest JSON svc reads from a user: far beyond any record or API body (the sandbox takes
 * 64 levels), and far below what would overflow the stack of the code that sends or compares it.
 */
export const MAX_USER_JSON_DEPTH = 512;

/**
 * JSON a user gives svc (records --data/--data-file, `svc api --input` and -F), read so that what
 * svc sends is what the user meant, or refused with one line (exit 2) before anything is sent:
 * bytes that are not UTF-8 (named by offset, never replaced with U+FFFD), nesting deeper than
 * MAX_USER_JSON_DEPTH, a key given twice in an object (JSON.parse keeps the last without a
 * word; a reader of the file sees the first), and a number a double cannot hold as written
 * (9007199254740993, 1.0000000000000001, 1e400: JSON.stringify would send another number, or
 * null, which a merge patch reads as "remove the field"). `what` names the input in messages,
 * `whole` the value itself when it is the one at fault (a -F field's name).
 */
export function parseUserJson(input: string | Buffer, what: string, whole = 'the value'): unknown {
  const text = typeof input === 'string' ? input : strictUtf8(input, what);
  const depth = jsonDepth(text);
  if (depth > MAX_USER_JSON_DEPTH) {
    throw new UsageError(
      `${what} nests ${depth} levels deep; svc sends JSON at most ${MAX_USER_JSON_DEPTH} levels deep`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
  const problem = jsonContentProblem(text, whole);
  if (problem !== undefined) throw new UsageError(`${what}: ${problem}`);
  return value;
}

/**
 * What in JSON text JSON.parse took would not be sent as written: the first key given twice in
 * an object, or number a double cannot hold (in words, with the fix); undefined when nothing.
 * `whole` names the value itself when it is the one at fault.
 */
export function jsonContentProblem(text: string, whole = 'the value'): string | undefined {
  let problem: string | undefined;
  scanJson(text, {
    depth: -1,
    onDuplicate: (key: string, path: JsonPath) => {
      problem ??= `"${key}" is given twice${path.length === 0 ? '' : ` in "${pathLabel(path)}"`}; keep one`;
    },
    onNumber: (raw: string, path: JsonPath) => {
      if (problem !== undefined) return;
      const becomes = doubleOf(raw);
      if (becomes === undefined) return;
      const field = path.length === 0 ? whole : `"${pathLabel(path)}"`;
      problem =
        becomes === 'infinite'
          ? `${field} is ${raw}, beyond the range of a number svc can send; give it as a string ("${raw}")`
          : `${field} is ${raw}, which svc would send as ${becomes} (a number keeps about 16 digits); give it as a string ("${raw}")`;
    },
  });
  return problem;
}

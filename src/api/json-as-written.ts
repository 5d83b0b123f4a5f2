/**
 * The JSON text a user wrote, kept beside the value parsed from it, so that a request body goes
 * out as written (100.50 stays 100.50, 1E2 stays 1E2; JSON.stringify would send 100.5 and 100)
 * even when svc adds its idempotency key (json-text.ts withMemberText). Kept under a symbol, never
 * enumerated, so no field is added or compared; a copy ({...data}) does not carry it, and a value
 * changed since it was parsed is no longer what the text says. Its numbers are noted as they came
 * too (numbers-as-they-came.ts), so such a copy or changed value still sends each number as
 * written (an edited `records get --json` copy, less the fields svc leaves out: attack27b F1), and
 * compares by it; only its whitespace and string escapes are then JSON.stringify's.
 */
import { withMemberText } from './json-text.js';
import { jsonAsTheyCame, keepNumbersAsTheyCame, withNumbersOf } from './numbers-as-they-came.js';

const AS_WRITTEN: unique symbol = Symbol('svc.jsonAsWritten');

type Holder = { [AS_WRITTEN]?: { text: string; stringified: string } };

/** Keep `text` (well-formed JSON) beside `value`, the object or array parsed from it; returns value. */
export function keepJsonAsWritten<T>(value: T, text: string): T {
  if (value !== null && typeof value === 'object') {
    Object.defineProperty(value, AS_WRITTEN, {
      value: { text, stringified: JSON.stringify(value) },
      enumerable: false,
    });
    keepNumbersAsTheyCame(text, value);
  }
  return value;
}

/** The text `value` was parsed from, when it still says the same (else undefined). */
export function jsonAsWritten(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const kept = (value as Holder)[AS_WRITTEN];
  return kept !== undefined && JSON.stringify(value) === kept.stringified ? kept.text : undefined;
}

/**
 * A body's text, the one way svc writes a user's JSON body: as written when svc has it, else
 * JSON.stringify's with each number as written (jsonAsTheyCame).
 */
export function bodyText(value: unknown): string {
  return jsonAsWritten(value) ?? jsonAsTheyCame(value);
}

/** An object body's text with one more member (the idempotency key), the rest as written. */
export function bodyTextWith(value: Record<string, unknown>, key: string, member: unknown): string {
  const written = jsonAsWritten(value);
  if (written === undefined) return jsonAsTheyCame(withNumbersOf(value, { ...value, [key]: member }));
  return withMemberText(written, key, JSON.stringify(member));
}

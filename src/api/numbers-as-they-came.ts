/**
 * The numbers of an answer as the server wrote them. JSON.parse turns every number into a double:
 * 9007199254740993 becomes 9007199254740992, 1.000000000000000001 becomes 1, -0 prints as 0 and
 * 100.50 as 100.5. An answer's value keeps, beside each object or array holding such a number,
 * the number's text (under a symbol, never enumerated, so no field is added or compared), and
 * svc prints it and compares by it: no digit a server sent is changed or decided on unseen.
 */
import { randomUUID } from 'node:crypto';
import { type JsonPath, sameDecimal, scanJson } from './json-text.js';

/** Beside an object or array: its members' numbers whose text a double would change, by key ("0" for index 0). */
export const AS_THEY_CAME: unique symbol = Symbol('svc.numbersAsTheyCame');

/** A null-prototype object, not a Map: a large list has one per item, and a Map weighs several times as much. */
type Notes = Record<string, string>;
type Holder = { [AS_THEY_CAME]?: Notes };

/**
 * Text that may hold a number a double writes otherwise, where JSON puts a value (after `:`, `,`
 * or `[`): -0, 16 or more digits, a fraction ending in 0, an exponent, a fraction below 1e-6
 * (JSON.stringify writes 0.0000001 as 1e-7). Cheap, and it passes over timestamps and ids (inside
 * strings), so most answers are never scanned.
 */
const SUSPECT = /(?:"\s*:|[,[])\s*(?:-0(?![1-9])|-?[\d.]{16}|-?\d*\.\d*0(?![\d.])|-?[\d.]+[eE]|-?0\.0{6})/;

/** Whether a double writes this number as it came. */
const keptByDouble = (raw: string) => JSON.stringify(Number(raw)) === raw;

function mapOf(holder: object): Notes {
  const own = (holder as Holder)[AS_THEY_CAME];
  if (own) return own;
  const map: Notes = Object.create(null);
  Object.defineProperty(holder, AS_THEY_CAME, { value: map, enumerable: false });
  return map;
}

/**
 * Note in `value` (JSON.parse of `text`) every number whose text a double would change. Each
 * object or array on the way to one is marked too, so that printing any part of the answer knows
 * to look. Most answers hold none: they are not scanned.
 */
export function keepNumbersAsTheyCame(text: string, value: unknown): void {
  if (value === null || typeof value !== 'object' || !SUSPECT.test(text)) return;
  scanJson(text, {
    depth: -1,
    onNumber: (raw, path) => {
      if (!keptByDouble(raw)) note(value, path, raw);
    },
  });
}

function note(root: object, path: JsonPath, raw: string): void {
  let holder: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    if (holder === null || typeof holder !== 'object') return;
    mapOf(holder);
    holder = (holder as Record<string | number, unknown>)[path[i]!];
  }
  if (holder === null || typeof holder !== 'object' || path.length === 0) return;
  mapOf(holder)[String(path[path.length - 1])] = raw;
}

/** The number at `holder[key]` as it came, when a double writes it otherwise (and it is still that number). */
export function numberAsItCame(holder: object, key: string, value: unknown): string | undefined {
  const raw = (holder as Holder)[AS_THEY_CAME]?.[key];
  return raw !== undefined && typeof value === 'number' && Object.is(Number(raw), value) ? raw : undefined;
}

/** Whether any number under `value` came as text a double would change. */
export function hasNumbersAsTheyCame(value: unknown): boolean {
  return value !== null && typeof value === 'object' && AS_THEY_CAME in value;
}

/** A copy of an object's members keeps their numbers' text (`{...record}` would lose it). */
export function withNumbersOf<T extends object>(from: object, copy: T): T {
  const map = (from as Holder)[AS_THEY_CAME];
  if (map) Object.defineProperty(copy, AS_THEY_CAME, { value: map, enumerable: false });
  return copy;
}

type Spread<A, B> = Omit<A, keyof B> & B;

/**
 * `{ ...a, ...b }`, the one way svc spreads an answer into an object of its own (a verdict's
 * fields at the top, `"replayed": true`, a key's state now over the answer of the day it was made):
 * each member keeps its number's text from the part it came from, the last that has its key
 * (`{...answer}` alone would print 9007199254740993 as …992 and 1.10 as 1.1: fixnum2).
 */
export function spreadAsTheyCame<A extends object, B extends object>(a: A, b: B): Spread<A, B>;
export function spreadAsTheyCame<A extends object, B extends object, C extends object>(
  a: A,
  b: B,
  c: C,
): Spread<Spread<A, B>, C>;
export function spreadAsTheyCame(...parts: object[]): object {
  const copy: Record<string, unknown> = Object.assign({}, ...parts);
  let notes: Notes | undefined;
  for (const part of parts) {
    const own = (part as Holder)[AS_THEY_CAME];
    // Marked even with no note of its own, as its answer was: a number below it is looked for.
    if (own) notes ??= Object.create(null) as Notes;
    for (const key of Object.keys(part)) {
      const raw = own?.[key];
      if (raw !== undefined) {
        notes ??= Object.create(null) as Notes;
        notes[key] = raw;
      } else if (notes) delete notes[key];
    }
  }
  if (notes) Object.defineProperty(copy, AS_THEY_CAME, { value: notes, enumerable: false });
  return copy;
}

/**
 * Whether `value` or anything under it is marked: an answer svc wraps (`{outcome, record}`, an
 * array of answers) is not marked itself, its parts are (attack27b F2: `records delete --json`
 * printed 100.50 as 100.5). An answer is marked at its root, so the walk stops at the first mark
 * and goes WRAPPED_DEPTH levels down at most (svc's wrappers are one or two deep; a cycle, which
 * JSON.stringify then refuses, ends there too).
 */
function marksWithin(value: unknown, depth = WRAPPED_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (AS_THEY_CAME in value) return true;
  if (depth === 0) return false;
  for (const child of Object.values(value)) if (marksWithin(child, depth - 1)) return true;
  return false;
}
const WRAPPED_DEPTH = 8;

/** JSON.stringify, but each number as it came (numberAsItCame), wherever its answer sits in `value`. */
export function jsonAsTheyCame(value: unknown, indent?: number): string {
  if (!marksWithin(value)) return JSON.stringify(value, null, indent);
  // One per process (a server cannot guess it either), and its pattern made once: a list prints
  // each of its items through here.
  const { nonce, pattern } = placeholders();
  const raws: string[] = [];
  const text = JSON.stringify(
    value,
    function (this: object, key: string, v: unknown) {
      const raw = numberAsItCame(this, key, v);
      if (raw === undefined) return v;
      raws.push(raw);
      return `${nonce}:${raws.length - 1}`;
    },
    indent,
  );
  return text.replace(pattern, (_, i: string) => raws[Number(i)]!);
}

let placeholder: { nonce: string; pattern: RegExp } | undefined;
function placeholders(): { nonce: string; pattern: RegExp } {
  if (placeholder) return placeholder;
  const nonce = randomUUID();
  placeholder = { nonce, pattern: new RegExp(`"${nonce}:(\\d+)"`, 'g') };
  return placeholder;
}

/**
 * Every number under `value` that came as text a double would change, by its path: two values
 * with the same doubles hold the same numbers only if these agree too.
 */
export function numbersAsTheyCame(value: unknown): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (node: unknown, path: string) => {
    if (!hasNumbersAsTheyCame(node)) return;
    for (const [key, child] of Object.entries(node as object)) {
      const raw = numberAsItCame(node as object, key, child);
      if (raw !== undefined) found.set(`${path}/${key}`, raw);
      else walk(child, `${path}/${key}`);
    }
  };
  walk(value, '');
  return found;
}

/** A number's text: as it came when a double writes it otherwise, else as a double writes it. */
const textOf = (holder: object, key: string, value: number) =>
  numberAsItCame(holder, key, value) ?? String(value);

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `a[key]` and `b[key]` are the same JSON value, every number compared by the exact value of its
 * text as it came (100.50 is 100.5; 1.000000000000000001 is not 1), objects whatever their key order.
 */
export function sameAsTheyCame(a: object, b: object, key: string): boolean {
  const x = (a as Record<string, unknown>)[key];
  const y = (b as Record<string, unknown>)[key];
  if (typeof x === 'number' && typeof y === 'number')
    return sameDecimal(textOf(a, key, x), textOf(b, key, y));
  if (Array.isArray(x) && Array.isArray(y))
    return x.length === y.length && x.every((_, i) => sameAsTheyCame(x, y, String(i)));
  if (isObject(x) && isObject(y)) {
    const keys = Object.keys(x);
    return (
      keys.length === Object.keys(y).length &&
      keys.every((k) => Object.hasOwn(y, k) && sameAsTheyCame(x, y, k))
    );
  }
  return Object.is(x, y);
}

/**
 * Whether `target` holds merge patch member `patch[key]` (RFC 7396): applying it would change
 * nothing, numbers compared as sameAsTheyCame does.
 */
export function holdsPatchMember(target: object, patch: object, key: string): boolean {
  const want = (patch as Record<string, unknown>)[key];
  if (want === null) return !Object.hasOwn(target, key);
  if (!Object.hasOwn(target, key)) return false;
  const have = (target as Record<string, unknown>)[key];
  if (isObject(want))
    return isObject(have) && Object.keys(want).every((k) => holdsPatchMember(have, want, k));
  return sameAsTheyCame(target, patch, key);
}

/**
 * JSON as text, read without recursion and without turning anything into a JavaScript value:
 * how deep it nests, each key given twice in an object, and each number as written. Shared by
 * svc (what a user gives it must reach the platform as meant) and the sandbox (what it cannot
 * store exactly it refuses). JSON.parse keeps the last of two equal keys without a word and
 * turns every number into a double: 9007199254740993 becomes 9007199254740992, 1e400 Infinity,
 * which JSON.stringify writes as null ("remove the field" in a merge patch).
 *
 * Over 300 lines, on purpose: the depth count, the scan (keys given twice, numbers as written, and
 * notAsWritten, the first of them, which svc and the sandbox each put in their own words) and the
 * layout that keeps them all walk JSON text the same way, and belong side by side.
 */

/** Where a value sits: keys of objects and indices of arrays. */
export type JsonPath = ReadonlyArray<string | number>;

/** How deeply JSON text nests (objects and arrays alike), in one pass over the text. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

export interface JsonScan {
  /** Paths are collected down to this depth (for lines); -1 collects none. */
  depth: number;
  /** A key given twice in one object: the key, the object's path, the line of the second. */
  onDuplicate?: (key: string, path: JsonPath, line: number) => void;
  /** A number as written, with its path (the scan's own, changed as it goes on: copy it to keep it). */
  onNumber?: (raw: string, path: JsonPath) => void;
}

/**
 * The line of every value of well-formed JSON text down to `depth` (of the key, for object
 * members), by path, in one pass; and, when asked, each key given twice in an object and each
 * number as written. The text must have been parsed already (JSON.parse): this only follows its
 * structure. The `yaml` package reads JSON too, but takes a hundred times as long and ten times
 * the memory (4.6 s and 600 MB for 100,000 grants).
 */
export function scanJson(text: string, scan: JsonScan): Map<string, number> {
  const { depth, onDuplicate, onNumber } = scan;
  const lines = new Map<string, number>();
  const path: Array<string | number> = [];
  const stack: Array<{ array: boolean; index: number; expectKey: boolean; keys?: Set<string> }> = [];
  let line = 1;
  const note = () => {
    if (path.length > depth) return;
    const key = path.join('\u0000');
    if (!lines.has(key)) lines.set(key, line);
  };
  const begin = () => {
    const top = stack[stack.length - 1];
    if (top?.array) path.push(top.index);
    note();
  };
  const end = () => {
    const top = stack[stack.length - 1];
    if (!top) return;
    path.pop();
    if (top.array) top.index++;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    else if (c === '{' || c === '[') {
      begin();
      stack.push({
        array: c === '[',
        index: 0,
        expectKey: c === '{',
        ...(onDuplicate && c === '{' ? { keys: new Set<string>() } : {}),
      });
    } else if (c === '}' || c === ']') {
      stack.pop();
      end();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top && !top.array) top.expectKey = true;
    } else if (c === ':') {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = false;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        // Most keys have no escape: their text is the key (JSON.parse per key was most of a scan's time).
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys?.has(key)) onDuplicate?.(key, [...path], line);
        top.keys?.add(key);
        path.push(key);
        note();
      } else {
        begin();
        end();
      }
      i = j;
    } else if (!isSpace(c)) {
      let j = i;
      while (j + 1 < text.length && !endsScalar(text[j + 1]!)) j++;
      begin();
      if (onNumber && (c === '-' || (c >= '0' && c <= '9'))) onNumber(text.slice(i, j + 1), path);
      end();
      i = j;
    }
  }
  return lines;
}

/** JSON's whitespace (the text was parsed already: no other kind comes between tokens). */
const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
/** What ends a number, true, false or null. */
const endsScalar = (c: string) => isSpace(c) || c === ',' || c === ']' || c === '}';

/**
 * What becomes of a JSON number as written once it is a double: undefined when it keeps its
 * value (1.10 is 1.1, 1e2 is 100), 'infinite' when it is beyond a double's range (1e400),
 * else the number it becomes (9007199254740993 → "9007199254740992", 1.0000000000000001 → "1",
 * -0 → "0").
 */
export function doubleOf(raw: string): 'infinite' | string | undefined {
  const value = Number(raw);
  if (!Number.isFinite(value)) return 'infinite';
  const written = String(value);
  return sameDecimal(raw, written) ? undefined : written;
}

/**
 * Two decimal numerals with the same value, and the same sign for a zero: a double holds -0, but
 * JSON.stringify writes it 0, so -0 re-encoded loses its sign (a ledger's credit-side zero).
 */
export function sameDecimal(a: string, b: string): boolean {
  const x = decimal(a);
  const y = decimal(b);
  return x.digits === y.digits && x.negative === y.negative && (x.digits === '' || x.exponent === y.exponent);
}

/** Whether a decimal numeral is a zero (-0, 0.0e5), not a number too small for a double (2e-324). */
export function isZeroDecimal(raw: string): boolean {
  return decimal(raw.replace(/^\+/, '')).digits === '';
}

/** Whether a decimal numeral (JSON's, a leading + allowed) is a whole number: 1e3 and 3600.0 are, 3599.9999999999999 is not. */
export function isWholeDecimal(raw: string): boolean {
  const { digits, exponent } = decimal(raw.replace(/^\+/, ''));
  return /^\d*$/.test(digits) && (digits === '' || exponent >= 0);
}

/** A numeral as sign, significant digits (no leading or trailing zeros) and the exponent of its last digit. */
function decimal(raw: string): { negative: boolean; digits: string; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (!match) return { negative: false, digits: raw, exponent: 0 };
  const fraction = match[3] ?? '';
  let digits = `${match[2]}${fraction}`.replace(/^0+/, '');
  let exponent = Number(match[4] ?? '0') - fraction.length;
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return { negative: match[1] === '-', digits, exponent };
}

/** The first thing in JSON text that a parse would not keep as written (notAsWritten). */
export type NotAsWritten =
  | { kind: 'twice'; key: string; path: JsonPath }
  | { kind: 'number'; raw: string; path: JsonPath; becomes: ReturnType<typeof doubleOf> & string };

/**
 * The first key given twice in an object, or number a double cannot hold (doubleOf), in
 * well-formed JSON text (the key alone without `numbers`); undefined when a parse keeps everything
 * as written. What svc refuses in a bulk row and the sandbox refuses to store, each in its own words.
 */
export function notAsWritten(text: string, numbers = true): NotAsWritten | undefined {
  let found: NotAsWritten | undefined;
  scanJson(text, {
    depth: -1,
    onDuplicate: (key, path) => {
      found ??= { kind: 'twice', key, path };
    },
    onNumber: (raw, path) => {
      if (!numbers) return;
      const becomes = found === undefined ? doubleOf(raw) : undefined;
      if (becomes !== undefined) found = { kind: 'number', raw, path: [...path], becomes };
    },
  });
  return found;
}

/** A path as a person writes it: `amount`, `meta.tags[2]`; the whole document is `(the document)`. */
export function pathLabel(path: JsonPath): string {
  if (path.length === 0) return '(the document)';
  let label = '';
  for (const part of path) label += typeof part === 'number' ? `[${part}]` : label === '' ? part : `.${part}`;
  return label;
}

/**
 * Well-formed JSON text laid out as JSON.stringify(value, null, indent) lays it out (compact
 * without an indent), but with every key, string and number as written: nothing becomes a
 * double (12345678901234567891 stays), no key given twice is dropped, no escape is rewritten.
 */
export function reindentJson(text: string, indent?: number): string {
  return [...reindentJsonChunks(text, indent)].join('');
}

/** How much laid-out text reindentJsonChunks gathers before it hands a piece on. */
const CHUNK = 1 << 16;

/**
 * reindentJson in pieces of about 64 KiB, each ending between two tokens (a string is never cut):
 * a large answer is written as it is laid out, never held whole a second time, and each piece
 * is built from a small list of tokens (a list of every token took 32 bytes of heap per byte).
 */
export function* reindentJsonChunks(text: string, indent?: number): Generator<string> {
  const pad = indent ? ' '.repeat(indent) : '';
  const colon = pad ? ': ' : ':';
  let out: string[] = [];
  let size = 0;
  let level = 0;
  const push = (piece: string) => {
    out.push(piece);
    size += piece.length;
  };
  const newline = () => {
    if (pad) push(`\n${pad.repeat(level)}`);
  };
  const white = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      let j = i + 1;
      while (white(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === c + 2) {
        push(c === 0x7b ? '{}' : '[]');
        i = j;
        continue;
      }
      level++;
      push(c === 0x7b ? '{' : '[');
      newline();
    } else if (c === 0x7d || c === 0x5d) {
      level--;
      newline();
      push(c === 0x7d ? '}' : ']');
    } else if (c === 0x2c) {
      push(',');
      newline();
    } else if (c === 0x3a) push(colon);
    else if (c === 0x22) {
      // The closing quote: the next one not escaped (after an even number of backslashes).
      let j = text.indexOf('"', i + 1);
      for (;;) {
        let slashes = 0;
        while (text.charCodeAt(j - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      push(text.slice(i, j + 1));
      i = j;
    } else if (!white(c)) {
      let j = i + 1;
      for (let d = text.charCodeAt(j); j < text.length; d = text.charCodeAt(++j)) {
        if (white(d) || d === 0x2c || d === 0x5d || d === 0x7d || d === 0x3a) break;
      }
      push(text.slice(i, j));
      i = j - 1;
    }
    if (size >= CHUNK) {
      yield out.join('');
      out = [];
      size = 0;
    }
  }
  if (out.length > 0) yield out.join('');
}

/** A member of an object in JSON text whose value is a string, number or boolean: where that value is. */
export interface JsonScalarMember {
  key: string;
  /** The value's first character and the one after its last, in the text. */
  start: number;
  end: number;
}

/**
 * Every object of well-formed JSON text, as it closes: its keys (each once), its members whose
 * value is a string, number or boolean (null and nested values are walked into, not listed), in
 * order and keys given twice included, and the key it sits under (through arrays, the array's
 * key; undefined at the top). With `containers`, members whose value is an object or an array
 * are listed too (after the members inside them). One pass without recursion, so any depth is read; nothing is
 * turned into a JavaScript value, so the text can be changed in place (masking a trace).
 */
export function eachJsonObject(
  text: string,
  visit: (members: JsonScalarMember[], keys: Set<string>, parentKey: string | undefined) => void,
  options: { containers?: boolean } = {},
): void {
  interface Frame {
    /** Where it opens, for `containers`. */
    start: number;
    array: boolean;
    parentKey: string | undefined;
    expectKey: boolean;
    key: string | undefined;
    keys: Set<string>;
    members: JsonScalarMember[];
  }
  const stack: Frame[] = [];
  const under = (): string | undefined => {
    const top = stack[stack.length - 1];
    return top === undefined ? undefined : top.array ? top.parentKey : top.key;
  };
  const scalar = (start: number, end: number) => {
    const top = stack[stack.length - 1];
    if (top && !top.array && top.key !== undefined) top.members.push({ key: top.key, start, end });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b;
      stack.push({
        start: i,
        array,
        parentKey: under(),
        expectKey: !array,
        key: undefined,
        keys: new Set(),
        members: [],
      });
    } else if (c === 0x7d || c === 0x5d) {
      const frame = stack.pop()!;
      if (!frame.array) visit(frame.members, frame.keys, frame.parentKey);
      // With `containers`, an object or array that is a member's value is listed as one too.
      if (options.containers) scalar(frame.start, i + 1);
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && !top.array) top.expectKey = true;
    } else if (c === 0x3a) {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = false;
    } else if (c === 0x22) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        top.key = JSON.parse(text.slice(i, j + 1)) as string;
        top.keys.add(top.key);
      } else scalar(i, j + 1);
      i = j;
    } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      let j = i + 1;
      while (j < text.length && !/[\s,\]}]/.test(text[j]!)) j++;
      if (text.slice(i, j) !== 'null') scalar(i, j);
      i = j - 1;
    }
  }
}

/**
 * Well-formed JSON object text with one more member, `"key":valueText`, put before its closing
 * brace: everything else stays as written (each number's text, spacing, escapes). The key must
 * not be in the object already.
 */
export function withMemberText(objectText: string, key: string, valueText: string): string {
  const close = objectText.lastIndexOf('}');
  let before = close - 1;
  while (before >= 0 && isSpace(objectText[before]!)) before--;
  const empty = objectText[before] === '{';
  return `${objectText.slice(0, close)}${empty ? '' : ','}${JSON.stringify(key)}:${valueText}${objectText.slice(close)}`;
}

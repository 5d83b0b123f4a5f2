/**
 * `svc api`'s -f and -F fields: a JSON body's members, or a query string's parameters. Nothing a
 * user typed is dropped or changed on the way: a member given twice is refused (a body holds one),
 * a parameter given twice is sent twice (as gh and curl do), and a query string gets each value's
 * text as typed (`-F amount=100.50` sends 100.50, not the double's 100.5).
 */
import { keepJsonAsWritten } from '../../api/json-as-written.js';
import { scanJson } from '../../api/json-text.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { QueryValue } from '../../http/client.js';
import { sym } from '../../output/symbols.js';
import { INPUT_LIMIT, readInputBytes, strictUtf8 } from '../../system/input.js';
import { parseUserJson } from '../../system/user-json.js';

export interface GivenFields {
  path: string;
  rawFields: Array<[string, string]>;
  typedFields: Array<[string, string]>;
  headers: Record<string, string>;
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * -F: a JSON value — true, false, null, a number, an array or an object ([…] and {…} must be
 * valid JSON) — or @FILE (the file's text); anything else is the string as written. -f always
 * sends the string.
 */
async function typedValue(ctx: Context, key: string, raw: string): Promise<unknown> {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (NUMBER.test(raw)) return parseUserJson(raw, '-F', `"${key}"`);
  if (raw.startsWith('[') || raw.startsWith('{')) {
    try {
      return parseUserJson(raw, `-F ${key}=${sym.ellipsis}`);
    } catch (error) {
      if (!(error as Error).message.includes(' is not valid JSON: ')) throw error;
      throw new UsageError((error as Error).message, {
        hint: 'quote the whole value for the shell, or send it as a string with -f',
      });
    }
  }
  if (raw.startsWith('@')) {
    const file = raw.slice(1);
    return strictUtf8(
      await readInputBytes(file, ctx.io.stdin, '-F', INPUT_LIMIT, ctx.signal),
      `-F ${key}=@${file}`,
    );
  }
  return raw;
}

/** Every field with the flag that gave it, -f ones first (as they were always applied). */
function given(options: GivenFields): Array<[flag: '-f' | '-F', key: string, raw: string]> {
  return [
    ...options.rawFields.map(([key, raw]) => ['-f', key, raw] as ['-f', string, string]),
    ...options.typedFields.map(([key, raw]) => ['-F', key, raw] as ['-F', string, string]),
  ];
}

/**
 * The members of a JSON body. A key given twice is refused, naming its flags: `-f amount=10.00
 * -f amount=1000.00` kept the last without a word. A Content-Type that is not JSON is refused
 * too: the fields would go as JSON under another label (a form endpoint reads none of them).
 */
export async function bodyFields(ctx: Context, options: GivenFields): Promise<Record<string, unknown>> {
  // Without a prototype, a key such as __proto__ is a field like any other: sent as given (the
  // server decides), never dropped, and never a way to plant fields (an idempotency_key) unseen.
  const fields: Record<string, unknown> = Object.create(null);
  const flags = new Map<string, string[]>();
  const all = given(options);
  for (const [flag, key] of all) flags.set(key, [...(flags.get(key) ?? []), flag]);
  for (const [key, by] of flags) {
    if (by.length > 1) throw new UsageError(`${key} is given twice (${by.join(', ')}); keep one`);
  }
  const type = options.headers['content-type'];
  if (all.length > 0 && type !== undefined && !/json/i.test(type)) {
    throw new UsageError(`-f/-F fields are sent as a JSON body, but -H gives Content-Type ${type}`, {
      hint: `for a body of another type, put it in a file and send it with --input FILE -H 'Content-Type: ${type}'`,
    });
  }
  // The body's text as typed: -F amount=100.50 sends 100.50 (JSON.stringify would send 100.5).
  const members: string[] = [];
  for (const [flag, key, raw] of all) {
    const value = flag === '-f' ? raw : await typedValue(ctx, key, raw);
    fields[key] = value;
    const typed = flag === '-F' && typeof value !== 'string';
    members.push(`${JSON.stringify(key)}:${typed ? raw : JSON.stringify(value)}`);
  }
  return keepJsonAsWritten(fields, `{${members.join(',')}}`);
}

/** The text a query string gets for a -F value: numbers as typed; arrays of scalars repeat the parameter. */
async function queryText(ctx: Context, key: string, raw: string): Promise<string | string[]> {
  if (NUMBER.test(raw)) return raw;
  const value = await typedValue(ctx, key, raw);
  const scalar = (v: unknown) => v === null || typeof v !== 'object';
  if (Array.isArray(value) && value.every(scalar)) {
    // Each number of the array as typed too (-F 'ids=[1.50,2]' sends ids=1.50&ids=2).
    const typed = new Map<unknown, string>();
    scanJson(raw, { depth: -1, onNumber: (text, path) => typed.set(path[0], text) });
    return value.map((v, i) => (typeof v === 'number' ? typed.get(i)! : String(v)));
  }
  if (scalar(value)) return String(value);
  throw new UsageError(
    `-F ${key}: an object cannot go in a query string; send it in a body (POST, PATCH, PUT)`,
  );
}

/**
 * The parameters of a query string (GET, HEAD, DELETE): one given twice is sent twice. One the
 * path already has (`/v1/tenants?limit=2 -F limit=5`) is refused: the field would replace it.
 */
export async function queryFields(ctx: Context, options: GivenFields): Promise<Record<string, QueryValue>> {
  const query: Record<string, string[]> = Object.create(null);
  const search = options.path.includes('?') ? options.path.slice(options.path.indexOf('?') + 1) : '';
  const inPath = new Set(new URLSearchParams(search.split('#')[0]).keys());
  for (const [flag, key, raw] of given(options)) {
    if (inPath.has(key)) {
      throw new UsageError(`${key} is given twice (in the path and ${flag}); keep one`);
    }
    const text = flag === '-f' ? raw : await queryText(ctx, key, raw);
    query[key] = [...(query[key] ?? []), ...(Array.isArray(text) ? text : [text])];
  }
  const out: Record<string, QueryValue> = Object.create(null);
  // One value stays a scalar (a --paginate cursor is read as one); more are sent repeated.
  for (const [key, values] of Object.entries(query)) out[key] = values.length === 1 ? values[0]! : values;
  return out;
}

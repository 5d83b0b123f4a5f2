import { characters, invisibleIn } from '../api/characters.js';
import { DURATION_PATTERN, parseDuration } from '../api/expiry.js';
import { isWholeDecimal } from '../api/json-text.js';
import { didYouMean } from '../api/suggest.js';
import { holdsCredential, isSecretField } from '../http/redact.js';
import { quoted } from '../output/format.js';
import { CONFIG_SCHEMA } from './schema.js';
import type { Path } from './source.js';

/**
 * Checks a file's value against its JSON Schema (./schema.ts) and reports every problem, each at
 * a path, in words a person can act on: a field that does not exist (with the closest one), a
 * secret where none may be, a value of the wrong kind or outside its choices (with the closest
 * choice). It understands the keywords that schema uses, nothing more. Over 300 lines: one walk
 * of those keywords, each a small function beside the words it says; split, they would part.
 */

export interface ShapeProblem {
  path: Path;
  message: string;
}

interface Schema {
  $ref?: string;
  type?: string;
  const?: unknown;
  enum?: readonly unknown[];
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: readonly Schema[];
  oneOf?: readonly Schema[];
  not?: Schema;
  description?: string;
}

const ROOT = CONFIG_SCHEMA as unknown as Schema & { $defs: Record<string, Schema> };
const NAMES: Record<string, string> = {
  block: 'a block',
  role: 'a role',
  grant: 'a grant',
  webhook: 'a webhook',
  oauth_client: 'an OAuth client',
};

export const SECRET_ADVICE =
  'secrets never go in the file: svc apply writes those of new webhooks and OAuth clients to --secret-dir';

/** Patterns svc checks with the parser they render (one grammar, its own messages). */
const PARSERS: Record<string, (value: string) => string | undefined> = {
  [DURATION_PATTERN]: (value) => {
    const parsed = parseDuration(value);
    return parsed.ok ? undefined : parsed.message;
  },
};

/** A number as the file writes it, when a double does not hold it (Source.written). */
type Written = (path: Path) => string | undefined;
let writtenNow: Written = () => undefined;

/** Every problem of the value's shape; an empty list when it fits. */
export function checkShape(value: unknown, written: Written = () => undefined): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  writtenNow = written;
  try {
    walk(ROOT, value, [], 'the file', problems);
  } finally {
    writtenNow = () => undefined;
  }
  return problems;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data (!!binary)';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  return typeof value === 'string' ? 'text' : `a ${typeof value}`;
}

/** A number as the file writes it, or as YAML writes its value (`.inf`). */
function numberText(value: number, path: Path): string {
  const written = writtenNow(path);
  if (written !== undefined) return written;
  if (Number.isNaN(value)) return '.nan';
  if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
  return String(value);
}

/** JSON's numerals (a leading + allowed, as YAML 1.2 writes one): the one way access files write numbers. */
const DECIMAL = /^[-+]?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A number whose text a double does not hold as written, under the JSON reader's rule (attack27b
 * F6): a whole-number field written 3599.9999999999999 was read as 3600 and planned without a
 * word; 0x1000 and 0o7000 were read as 4096 and 3584 (YAML 1.2; YAML 1.1 tools read 07000 as
 * octal too). Such a value is refused, named as written.
 */
function numberProblem(schema: Schema, value: unknown, path: Path): string | undefined {
  if (typeof value !== 'number' || (schema.type !== 'integer' && schema.type !== 'number')) return undefined;
  const written = writtenNow(path);
  if (written === undefined) return undefined;
  if (!DECIMAL.test(written))
    // 0x1000, 0o7000: another base; 5., .5, 05 (YAML 1.2 decimals): another way to write it (review27b L3).
    return /^[-+]?0[xob]/i.test(written)
      ? `${named(path)} is ${written}, which is not a decimal number; write it in decimal (${value})`
      : `${named(path)} is ${written}, which is not how access files write a number (as JSON does); write it as ${value}`;
  if (schema.type === 'integer' && !isWholeDecimal(written))
    return `${named(path)} must be a whole number, not ${written} (a double would read it as ${value})`;
  return undefined;
}

const EXPECTED: Record<string, string> = {
  object: 'a map of fields',
  array: 'a list',
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

function fits(type: string, value: unknown): boolean {
  if (type === 'object') return value !== null && typeof value === 'object' && !Array.isArray(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  return typeof value === type;
}

/** `"name"` for a field, `item 3 of "users"` for a list item: how messages name the value. */
function named(path: Path): string {
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const list = path[path.length - 2];
    return typeof list === 'string' ? `item ${last + 1} of "${list}"` : `item ${last + 1}`;
  }
  return last === undefined ? 'the file' : `"${last}"`;
}

function walk(schema: Schema, value: unknown, path: Path, what: string, out: ShapeProblem[]): void {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/$defs/', '');
    walk(ROOT.$defs[name]!, value, path, NAMES[name] ?? name, out);
    return;
  }
  if (schema.anyOf) {
    const fitting = schema.anyOf.find((branch) => {
      const trial: ShapeProblem[] = [];
      walk(branch, value, path, what, trial);
      return trial.length === 0;
    });
    if (fitting) return;
    // A value of the kind exactly one branch takes (a list, for `tenants`) is wrong inside:
    // that branch says where (`item 2 of "tenants" must be text`).
    const sameKind = schema.anyOf.filter((branch) => branch.type !== undefined && fits(branch.type, value));
    if (sameKind.length === 1 && typeof value === 'object') {
      walk(sameKind[0]!, value, path, what, out);
      return;
    }
    out.push({ path, message: `${named(path)} must be: ${schema.description ?? 'another value'}` });
    return;
  }
  if (schema.const !== undefined && value !== schema.const) {
    out.push({ path, message: `${named(path)} must be ${JSON.stringify(schema.const)}` });
    return;
  }
  const numeral = numberProblem(schema, value, path);
  if (numeral !== undefined) {
    out.push({ path, message: numeral });
    return;
  }
  if (schema.type && !fits(schema.type, value)) {
    // A number is named by its value (`not 3600.5`), not its kind (it said `not a number`).
    const not =
      schema.type === 'integer' && typeof value === 'number' ? numberText(value, path) : kindOf(value);
    out.push({ path, message: `${named(path)} must be ${EXPECTED[schema.type]}, not ${not}` });
    return;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    const choices = schema.enum.map(String);
    const hint = typeof value === 'string' ? didYouMean(value, choices) : '';
    out.push({
      path,
      message: `${named(path)} must be one of ${choices.join(', ')}, not ${quoted(value)}${hint}`,
    });
    return;
  }
  if (typeof value === 'string') checkText(schema, value, path, out);
  else if (typeof value === 'number') checkNumber(schema, value, path, out);
  else if (Array.isArray(value)) checkList(schema, value, path, what, out);
  else if (value !== null && typeof value === 'object') {
    checkMap(schema, value as Record<string, unknown>, path, what, out);
  }
}

/** A value shaped like a secret (`whsec_…`, `svc_sk_…`, a JWT): never in an access file. */
export function looksSecret(value: string): boolean {
  return holdsCredential(value);
}

/** The fields that hold an id, by the key they are under (a list's items by the list's): what they name. */
const ID_FIELDS: Record<string, string> = {
  user: 'user',
  users: 'user',
  tenants: 'tenant',
  id: 'webhook',
  client_id: 'client_id',
};

/** An id field's invisible character (a paste's), in invisibleIn's words; else undefined. */
function invisibleId(value: string, path: Path): string | undefined {
  const key = path.findLast((part) => typeof part === 'string');
  const what = key === undefined || !Object.hasOwn(ID_FIELDS, key) ? undefined : ID_FIELDS[key];
  return what === undefined ? undefined : invisibleIn(what, value);
}

function checkText(schema: Schema, value: string, path: Path, out: ShapeProblem[]): void {
  // An id with an invisible character: escaped, not drawn as the id it would be suggested (attack21b F7).
  const invisible = invisibleId(value, path);
  if (looksSecret(value)) {
    out.push({ path, message: `${named(path)} looks like a secret; ${SECRET_ADVICE}` });
  } else if (invisible !== undefined) {
    out.push({ path, message: invisible });
  } else if (schema.minLength !== undefined && characters(value.trim()) < schema.minLength) {
    out.push({ path, message: `${named(path)} must not be empty` });
  } else if (schema.maxLength !== undefined && characters(value) > schema.maxLength) {
    out.push({ path, message: `${named(path)} is longer than ${schema.maxLength} characters` });
  } else if (schema.pattern !== undefined && PARSERS[schema.pattern]) {
    const problem = PARSERS[schema.pattern]!(value);
    if (problem) out.push({ path, message: `${named(path)} ${problem}` });
  } else if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
    const rule = schema.description ? `: ${schema.description}` : '';
    out.push({ path, message: `${named(path)} ${quoted(value)} is not valid${rule}` });
  }
}

function checkNumber(schema: Schema, value: number, path: Path, out: ShapeProblem[]): void {
  if (
    (schema.minimum !== undefined && value < schema.minimum) ||
    (schema.maximum !== undefined && value > schema.maximum)
  ) {
    out.push({
      path,
      message: `${named(path)} must be from ${schema.minimum} to ${schema.maximum}, not ${writtenNow(path) ?? value}`,
    });
  }
}

function checkList(schema: Schema, value: unknown[], path: Path, what: string, out: ShapeProblem[]): void {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    out.push({ path, message: `${named(path)} must not be empty` });
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    out.push({ path, message: `${named(path)} has ${value.length} items; at most ${schema.maxItems}` });
  }
  if (schema.uniqueItems) {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const key = JSON.stringify(item);
      if (seen.has(key)) out.push({ path: [...path, i], message: `${named(path)} lists ${key} twice` });
      seen.add(key);
    });
  }
  const items = schema.items;
  if (!items) return;
  value.forEach((item, i) => {
    walk(items, item, [...path, i], what, out);
  });
}

function checkMap(
  schema: Schema,
  value: Record<string, unknown>,
  path: Path,
  what: string,
  out: ShapeProblem[],
): void {
  const known = Object.keys(schema.properties ?? {});
  for (const [key, field] of Object.entries(value)) {
    // Own fields only: `constructor` or `__proto__` would find Object.prototype's members.
    const fieldSchema =
      schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (fieldSchema) {
      const inner = fieldSchema.type === 'object' && !fieldSchema.$ref ? `"${key}"` : what;
      walk(fieldSchema, field, [...path, key], inner, out);
    } else if (schema.additionalProperties === false) {
      const message = isSecretField(key)
        ? `"${key}": ${SECRET_ADVICE}`
        : `"${key}" is not a field of ${what}${didYouMean(key, known)} (fields: ${known.join(', ')})`;
      out.push({ path: [...path, key], message });
    }
  }
  const missing = (schema.required ?? []).filter((key) => !Object.hasOwn(value, key));
  if (missing.length > 0) {
    out.push({ path, message: `${what} needs ${missing.map((k) => `"${k}"`).join(' and ')}` });
  }
  // oneOf and not, as the schema uses them: exactly one of some fields, and fields that exclude each other.
  const alternatives = schema.oneOf?.flatMap((branch) => branch.required ?? []) ?? [];
  const given = alternatives.filter((key) => key in value);
  if (alternatives.length > 0 && given.length !== 1) {
    const names = alternatives.map((k) => `"${k}"`).join(' or ');
    out.push({ path, message: `${what} needs ${given.length === 0 ? names : `${names}, not both`}` });
  }
  const exclusive = schema.not?.required ?? [];
  if (exclusive.length > 0 && exclusive.every((key) => key in value)) {
    out.push({
      path: [...path, exclusive[1]!],
      message: `${exclusive.map((k) => `"${k}"`).join(' and ')} cannot be combined; pick one`,
    });
  }
}

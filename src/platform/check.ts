/**
 * The boundary check: an answer is compared with the schema of its operation (the TypeBox
 * schemas of src/api, which are plain JSON Schema) before any command believes it.
 *
 * Deliberately tolerant, so that svc works with any server that speaks the platform API and not
 * only with its own sandbox: unknown fields pass (servers add fields), enum values, formats,
 * patterns and bounds are not enforced (a new status value is an addition, not a broken answer),
 * and a required field whose schema allows null may also be absent. What it does refuse is what
 * would make a command print or store something untrue: a required field that is missing, or
 * present with the wrong JSON type, at any depth.
 *
 * Written here rather than taken from a validator library: TypeBox's Value.Check rejects the
 * schemas' `Type.Unsafe` enums and unregistered formats and enforces everything above, Ajv
 * compiles with `new Function` on every start (and adds ~150 KB), and neither names a field the
 * way the one-line error below does.
 */

export interface JsonSchema {
  $id?: string;
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/** Where an answer differs from its schema: `found` is undefined when the field is missing. */
export interface Mismatch {
  /** e.g. `items[3].id`; empty for the answer itself. */
  path: string;
  expected: string;
  found: string | undefined;
}

export type Refs = ReadonlyMap<string, JsonSchema>;

/** The first place where `value` does not fit `schema`, or undefined when it fits. */
export function findMismatch(schema: JsonSchema, value: unknown, refs: Refs, at = ''): Mismatch | undefined {
  if (schema.$ref !== undefined) return findMismatch(resolve(schema.$ref, refs), value, refs, at);
  for (const part of schema.allOf ?? []) {
    const mismatch = findMismatch(part, value, refs, at);
    if (mismatch) return mismatch;
  }
  if (schema.anyOf) return anyOfMismatch(schema.anyOf, value, refs, at);
  if (schema.type !== undefined && !typeFits(schema.type, value)) {
    return { path: at, expected: describe(schema, refs), found: kindOf(value) };
  }
  if (isObject(value)) return objectMismatch(schema, value, refs, at);
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) {
      const mismatch = findMismatch(schema.items, value[i], refs, `${at}[${i}]`);
      if (mismatch) return mismatch;
    }
  }
  return undefined;
}

function objectMismatch(
  schema: JsonSchema,
  value: Record<string, unknown>,
  refs: Refs,
  at: string,
): Mismatch | undefined {
  const properties = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    const property = properties[name];
    if (value[name] === undefined && !(property && allowsNull(property, refs))) {
      return {
        path: join(at, name),
        expected: property ? describe(property, refs) : 'a value',
        found: undefined,
      };
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (value[name] === undefined) continue;
    const mismatch = findMismatch(property, value[name], refs, join(at, name));
    if (mismatch) return mismatch;
  }
  return undefined;
}

/** A union fits when one branch fits; otherwise the branch of the value's own type explains why. */
function anyOfMismatch(branches: JsonSchema[], value: unknown, refs: Refs, at: string): Mismatch | undefined {
  const mismatches: Mismatch[] = [];
  for (const branch of branches) {
    const mismatch = findMismatch(branch, value, refs, at);
    if (!mismatch) return undefined;
    mismatches.push(mismatch);
  }
  const deeper = mismatches.filter((m) => m.path !== at);
  if (deeper.length === 1) return deeper[0];
  return { path: at, expected: describe({ anyOf: branches }, refs), found: kindOf(value) };
}

function resolve(ref: string, refs: Refs): JsonSchema {
  const target = refs.get(ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, ''));
  if (!target) throw new Error(`schema reference ${ref} is not registered with the platform client`);
  return target;
}

function allowsNull(schema: JsonSchema, refs: Refs): boolean {
  if (schema.$ref !== undefined) return allowsNull(resolve(schema.$ref, refs), refs);
  if (schema.anyOf) return schema.anyOf.some((branch) => allowsNull(branch, refs));
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'));
}

function typeFits(type: string | string[], value: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => typeFits(t, value));
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return true;
  }
}

/** What a schema expects, in words: `string`, `string or null`, `array`, `object`. */
export function describe(schema: JsonSchema, refs: Refs): string {
  if (schema.$ref !== undefined) return describe(resolve(schema.$ref, refs), refs);
  if (schema.anyOf) return [...new Set(schema.anyOf.map((branch) => describe(branch, refs)))].join(' or ');
  if (schema.allOf) return 'object';
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  return schema.type ?? 'a value';
}

/** What a value is, in words, for "… as a number, not a string". */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'nothing';
  return `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function join(at: string, name: string): string {
  return at === '' ? name : `${at}.${name}`;
}

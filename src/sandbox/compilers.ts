/**
 * Fastify's schema compilers, shared by every sandbox in the process.
 *
 * Each `Fastify()` makes its own Ajv and compiles every route's validators and serializers again
 * when it becomes ready: about 0.4 s for the sandbox's routes, paid again by every sandbox a
 * process starts (a whole test run builds 473, session 23, in its few processes). What a
 * validator or serializer does depends only on its schema, the shared schemas (`addSchema`) and
 * the compiler options, so each is compiled once per process for those three and reused. What
 * each instance validates and sends is unchanged: same schemas, same options, same compiled code.
 *
 * Fastify asks for a compiler once per route (an app with shared schemas never counts as set up),
 * handing each a fresh copy of the same shared-schema objects; `scope` is worked out once per app
 * and options.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Compile = (route: { schema: unknown }) => unknown;
type Factory = (externalSchemas: Record<string, unknown>, options: unknown) => Compile;

/** `factory`, with what it compiles remembered by (shared schemas, options, route schema). */
function remembered<F>(factory: F): F {
  const compiled = new Map<string, Map<string, unknown>>();
  /**
   * Scopes by one of an app's shared-schema objects (the same for all its routes), then by the
   * options: perPart asks with two (query strings' and bodies'), and one remembered scope per app
   * was replaced by the other at every route, 280 JSON texts of 36 KB per sandbox started. What is
   * remembered is the scope's own map of compiled routes: looking the 36 KB text up in `compiled`
   * again at every route compared it whole with the first app's copy (about 1,100 times per
   * sandbox started).
   */
  const scopes = new WeakMap<object, Map<unknown, { count: number; done: Map<string, unknown> }>>();
  /** Route schemas already written as JSON (most are module-level constants). */
  const json = new WeakMap<object, string>();

  const compiledIn = (externalSchemas: Record<string, unknown>, options: unknown): Map<string, unknown> => {
    const values = Object.values(externalSchemas);
    const anchor = values.find((value) => typeof value === 'object' && value !== null) as object | undefined;
    let byOptions = anchor ? scopes.get(anchor) : undefined;
    const known = byOptions?.get(options);
    if (known && known.count === values.length) return known.done;
    const scope = JSON.stringify([externalSchemas, options]);
    let done = compiled.get(scope);
    if (!done) {
      done = new Map();
      compiled.set(scope, done);
    }
    if (anchor) {
      if (!byOptions) {
        byOptions = new Map();
        scopes.set(anchor, byOptions);
      }
      byOptions.set(options, { count: values.length, done });
    }
    return done;
  };
  const keyOf = (schema: unknown): string => {
    if (typeof schema !== 'object' || schema === null) return JSON.stringify(schema);
    let text = json.get(schema);
    if (text === undefined) {
      text = JSON.stringify(schema);
      json.set(schema, text);
    }
    return text;
  };

  const remembering: Factory = (externalSchemas, options) => {
    const inScope = compiledIn(externalSchemas, options);
    // Made only on a miss, and afresh for each call as Fastify expects (the serializer factory's
    // options change as it compiles).
    let compile: Compile | undefined;
    return (route) => {
      const key = keyOf(route.schema);
      if (!inScope.has(key)) {
        compile ??= (factory as unknown as Factory)(externalSchemas, options);
        inScope.set(key, compile(route));
      }
      return inScope.get(key);
    };
  };
  return remembering as unknown as F;
}

type AjvOptions = { customOptions?: Record<string, unknown> } & Record<string, unknown>;
type PartCompile = (route: { schema: unknown; httpPart?: string }) => unknown;

/**
 * A validator per HTTP part: query strings, path parameters and headers are text and are
 * converted to their schema's types (`coerceTypes` as the app sets it: `?limit=5` is 5); a JSON
 * body already has its types, so it is checked as written, never converted (`""` is not null, a
 * null is not false, a string is not a one-item array): a wrong type is 400 naming the field.
 */
function perPart<F>(built: F): F {
  const factory = built as unknown as Factory;
  const strictOf = new WeakMap<object, AjvOptions>();
  return ((externalSchemas: Record<string, unknown>, options: unknown) => {
    const given = options as AjvOptions;
    let strict = strictOf.get(given);
    if (!strict) {
      strict = { ...given, customOptions: { ...given.customOptions, coerceTypes: false } };
      strictOf.set(given, strict);
    }
    const texts = factory(externalSchemas, given) as PartCompile;
    const bodies = factory(externalSchemas, strict) as PartCompile;
    return ((route: { schema: unknown; httpPart?: string }) =>
      route.httpPart === 'body' ? bodies(route) : texts(route)) as Compile;
  }) as unknown as F;
}

/** Pass as `schemaController.compilersFactory` to `Fastify()`. */
export const SHARED_COMPILERS = {
  buildValidator: perPart(remembered(AjvCompiler())),
  buildSerializer: remembered(SerializerSelector()),
};

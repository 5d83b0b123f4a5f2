/**
 * Fastify's schema compilers, shared by every sandbox in the process.
 *
 * Each `Fastify()` makes its own Ajv and compiles every route's validators and serializers again
 * when it becomes ready: about 0.4 s for the sandbox's routes, paid again by every sandbox a
 * process starts (the test suite starts about a hundred, the tour one per chapter). What a
 * validator or serializer does depends only on its schema, the shared schemas (`addSchema`) and
 * the compiler options, so each is compiled once per process for those three, written as JSON,
 * and reused. What each instance validates and sends is unchanged: same schemas, same options,
 * same compiled code.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = (externalSchemas: unknown, options: unknown) => (route: { schema: unknown }) => unknown;

/** `factory`, with what it compiles remembered by (shared schemas, options, route schema) as JSON. */
function remembered<F>(factory: F): F {
  const compiled = new Map<string, unknown>();
  const remembering: Factory = (externalSchemas, options) => {
    const compile = (factory as unknown as Factory)(externalSchemas, options);
    const scope = JSON.stringify([externalSchemas, options]);
    return (route) => {
      const key = `${scope}\n${JSON.stringify(route.schema)}`;
      if (!compiled.has(key)) compiled.set(key, compile(route));
      return compiled.get(key);
    };
  };
  return remembering as unknown as F;
}

/** Pass as `schemaController.compilersFactory` to `Fastify()`. */
export const SHARED_COMPILERS = {
  buildValidator: remembered(AjvCompiler()),
  buildSerializer: remembered(SerializerSelector()),
};

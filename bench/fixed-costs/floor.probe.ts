/**
 * Idea (a) of session 29 (build the sandbox's route table once per worker): a warm sandbox's start
 * and close against, in turns in one process, (1) the floor: its routes collected once (options,
 * schemas, handlers) and registered on a bare Fastify with the same shared schemas and compilers,
 * none of svc's plugins, hooks or route modules run; (2) the floor with every route schema a new
 * object (a deep copy: structuredClone's own cost is in it); (3) the floor with swagger and the
 * onRoute hooks; (4) both; (5) the whole sandbox with the collected route table in place of its
 * route modules (what reusing the table could save at most, handlers' per-sandbox state aside);
 * (6) a bare Fastify without routes.
 */
import swagger from '@fastify/swagger';
import Fastify, { type RouteOptions } from 'fastify';
import { it } from 'vitest';
import { SHARED_COMPILERS } from '../../src/sandbox/compilers.js';
import { swaggerOptions } from '../../src/sandbox/openapi.js';
import { registerAuth } from '../../src/sandbox/plugins/auth.js';
import { registerStrictQueries } from '../../src/sandbox/plugins/strict-query.js';
import { registerUnmatched } from '../../src/sandbox/plugins/unmatched.js';
import { ROUTE_MODULES } from '../../src/sandbox/routes/index.js';
import { buildSandbox, startSandbox } from '../../src/sandbox/server.js';
import { cpuMs, median, record } from './lib.js';

const N = 10;

/** Rounds of every variant in turn (N each), the median per variant of its rounds' means. */
async function interleaved(variants: Array<[string, () => Promise<unknown>]>, rounds = 7): Promise<void> {
  for (const [, once] of variants) await once();
  const seen = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++)
    for (const [name, once] of variants) {
      const start = cpuMs();
      for (let i = 0; i < N; i++) await once();
      seen.get(name)!.push((cpuMs() - start) / N);
    }
  for (const [name, values] of seen)
    record({ name, ms: +median(values).toFixed(2), rounds: values.map((x) => +x.toFixed(1)) });
}

it('measures the floor', async () => {
  const { app: model, context } = await buildSandbox({});
  const shared = Object.values(model.getSchemas());
  const routes: RouteOptions[] = [];
  const collector = Fastify({ logger: false, schemaController: { compilersFactory: SHARED_COMPILERS } });
  for (const schema of shared) collector.addSchema(schema as never);
  collector.addHook('onRoute', (route) => {
    const keep = [
      'method',
      'url',
      'schema',
      'handler',
      'config',
      'bodyLimit',
      'onRequest',
      'preParsing',
      'preValidation',
      'preHandler',
      'preSerialization',
      'onSend',
      'onResponse',
      'errorHandler',
    ];
    routes.push(Object.fromEntries(Object.entries(route).filter(([k]) => keep.includes(k))) as RouteOptions);
  });
  for (const register of ROUTE_MODULES) register(collector, context);
  await collector.ready();
  await collector.close();
  const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
  const own = routes.filter((r) => !(r.method === 'HEAD' && gets.has(r.url)));
  await model.close();

  const bare = async (withRoutes: boolean, fresh = false, hooks = false) => {
    const app = Fastify({
      logger: false,
      forceCloseConnections: true,
      schemaController: { compilersFactory: SHARED_COMPILERS },
      ajv: {
        customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true },
      },
    });
    for (const schema of shared) app.addSchema(schema as never);
    if (hooks) {
      await app.register(swagger, swaggerOptions());
      registerAuth(app, context.state, context.baseUrl);
      registerStrictQueries(app);
      registerUnmatched(app);
    }
    if (withRoutes && fresh)
      for (const r of own) app.route({ ...r, schema: structuredClone(r.schema) } as RouteOptions);
    else if (withRoutes) for (const r of own) app.route({ ...r } as RouteOptions);
    await app.listen({ host: '127.0.0.1', port: 0 });
    await app.close();
  };
  record({ name: 'routes', collected: routes.length, registered: own.length });
  const variants: Array<[string, () => Promise<unknown>]> = [
    ['sandbox start+close', async () => (await startSandbox({ port: 0 })).close()],
    ['floor: bare Fastify, the same shared schemas and route options, listen+close', () => bare(true)],
    ['floor + every route schema a new object (deep copy)', () => bare(true, true)],
    ['floor + swagger and the onRoute hooks (auth, strict query, unmatched)', () => bare(true, false, true)],
    ['floor + both', () => bare(true, true, true)],
    [
      'sandbox with its route table prebuilt (route modules not run)',
      async () => {
        const modules = ROUTE_MODULES.splice(0, ROUTE_MODULES.length, (app) => {
          for (const r of own) app.route({ ...r } as RouteOptions);
        });
        try {
          await (await startSandbox({ port: 0 })).close();
        } finally {
          ROUTE_MODULES.splice(0, ROUTE_MODULES.length, ...modules);
        }
      },
    ],
    ['bare Fastify, shared schemas, no routes, listen+close', () => bare(false)],
  ];
  await interleaved(variants);
}, 600_000);

// Bundles src/ into dist/ with esbuild:
//   dist/cli.cjs  — the CLI. One CommonJS file: bin/svc.js compiles it with V8's code cache
//                   (see bin/svc.js), which is what makes start-up fast on Node 20; modules
//                   reached through import() stay uninitialised until a command needs them.
//   dist/tour.cjs — the `npm start` tour (sandbox in-process, svc as child processes).
// The sandbox's server stack (fastify) stays in node_modules.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * undici's HTTP/2 client loads node:http2, node:tls and node:crypto when undici loads (~9 ms of
 * every command, bench/RESULTS.md). svc never enables allowH2, so the bundle gets a stub that
 * fails loudly if it ever were; https still works (undici loads tls lazily on connect).
 */
const withoutHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher$/.test(args.resolveDir)
        ? { path: 'client-h2', namespace: 'svc-stub' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, () => ({
      contents:
        "module.exports = function connectH2 () { throw new Error('svc is built without HTTP/2 support') }",
      loader: 'js',
    }));
  },
};

export async function buildDist({ quiet = false } = {}) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/cli.ts', tour: 'src/tour/main.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.18',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'none',
    external: ['fastify', '@fastify/*', 'playwright-core'],
    define: { __SVC_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__svcImportMetaUrl' },
    banner: { js: "const __svcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    // conf's schema validation and migrations are unused; see scripts/stubs/.
    alias: {
      'ajv/dist/2020.js': './scripts/stubs/ajv.mjs',
      'ajv-formats': './scripts/stubs/ajv.mjs',
      semver: './scripts/stubs/semver.mjs',
    },
    plugins: [withoutHttp2],
    logLevel: quiet ? 'error' : 'warning',
  });
  // bin/svc.js runs the bundle as a vm.Script (for the code cache), where a real import() has no
  // loader; esbuild turns import() of bundled code into require(), but not import() of externals.
  const cli = readFileSync(join(root, 'dist', 'cli.cjs'), 'utf8');
  const dynamic = cli.match(/\bimport\((["'`])[^"'`]*\1\)/g);
  if (dynamic)
    throw new Error(`dist/cli.cjs must not use import() of external modules: ${dynamic.join(', ')}`);
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const result = await buildDist();
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.cjs'));
  const sizes = outputs.map(([f, o]) => `${f} ${(o.bytes / 1024).toFixed(0)} KB`).join(', ');
  console.error(`built ${sizes} in ${Math.round(performance.now() - started)} ms`);
}

// Bundles src/ into dist/ with esbuild:
//   dist/cli.cjs  — the CLI. One CommonJS file: bin/svc.js compiles it with V8's code cache
//                   (see bin/svc.js), which is what makes start-up fast on Node 20; modules
//                   reached through import() stay uninitialised until a command needs them.
//   dist/tour.cjs — the `npm start` tour (sandbox in-process, svc as child processes).
//   dist/launcher.json — what bin/svc.js must know before it loads the bundle (the global
//                   flags that take a value), taken from the built program itself.
// What the bundle leaves out or stubs, and why, is listed in src/runtime/bundle.mjs.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EXTERNAL, STUBS } from '../src/runtime/bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** STUBS as esbuild options: file stand-ins become aliases, inline ones a plugin. */
function stubOptions() {
  const alias = {};
  const inline = [];
  for (const stub of STUBS) {
    if (stub.file) alias[stub.module] = `./${stub.file}`;
    else inline.push(stub);
  }
  const plugin = {
    name: 'svc-stubs',
    setup(b) {
      inline.forEach((stub, i) => {
        const filter = new RegExp(`^${stub.module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
        b.onResolve({ filter }, (args) =>
          stub.importedFrom.test(args.resolveDir) ? { path: String(i), namespace: 'svc-stub' } : undefined,
        );
      });
      b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, (args) => ({
        contents: inline[Number(args.path)].contents,
        loader: 'js',
      }));
    },
  };
  return { alias, plugins: [plugin] };
}

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
    external: EXTERNAL,
    define: { __SVC_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__svcImportMetaUrl' },
    banner: { js: "const __svcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    ...stubOptions(),
    logLevel: quiet ? 'error' : 'warning',
  });
  // bin/svc.js runs the bundle as a vm.Script (for the code cache), where a real import() has no
  // loader; esbuild turns import() of bundled code into require(), but not import() of externals.
  const cli = readFileSync(join(root, 'dist', 'cli.cjs'), 'utf8');
  const dynamic = cli.match(/\bimport\((["'`])[^"'`]*\1\)/g);
  if (dynamic)
    throw new Error(`dist/cli.cjs must not use import() of external modules: ${dynamic.join(', ')}`);
  // Loading the bundle has no side effects (the entry point is main()), so its facts can be read.
  const require = createRequire(import.meta.url);
  const bundle = join(root, 'dist', 'cli.cjs');
  writeFileSync(join(root, 'dist', 'launcher.json'), `${JSON.stringify(require(bundle).launcherFacts())}\n`);
  delete require.cache[bundle];
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const result = await buildDist();
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.cjs'));
  const sizes = outputs.map(([f, o]) => `${f} ${(o.bytes / 1024).toFixed(0)} KB`).join(', ');
  console.error(`built ${sizes} in ${Math.round(performance.now() - started)} ms`);
}

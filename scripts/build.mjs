// Bundles src/ into dist/ with esbuild:
//   dist/cli.cjs  — the CLI. One CommonJS file: bin/svc.js compiles it with V8's code cache
//                   (see bin/svc.js), which is what makes start-up fast on Node 20; modules
//                   reached through import() stay uninitialised until a command needs them.
//   dist/tour.cjs — the `npm start` tour (sandbox in-process, svc as child processes).
//   dist/launcher.json — what bin/svc.js must know before it loads the bundle (the global
//                   flags that take a value), taken from the built program itself.
// What the bundle leaves out or stubs, and why, is listed in src/runtime/bundle.mjs.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
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

/**
 * Moves the files of `from` into `to`, each by one rename (atomic: a reader has the old file or
 * the new one, never none), `last` after the rest; removes what `to` had that `from` does not,
 * and then `from`.
 */
export function moveInto(from, to, last) {
  const names = readdirSync(from);
  const order = [...names.filter((n) => n !== last), ...names.filter((n) => n === last)];
  for (const name of order) renameSync(join(from, name), join(to, name));
  for (const name of readdirSync(to)) {
    if (!names.includes(name)) rmSync(join(to, name), { recursive: true, force: true });
  }
  rmSync(from, { recursive: true, force: true });
}

/**
 * Builds into a folder of its own and then moves each file into place: a test run that
 * spawns svc while another run (or `npm run build`) rebuilds it in the same worktree always finds
 * a whole dist/ (it was removed first and rebuilt, and the other run's spawns said "svc is not
 * built"). launcher.json goes last: its facts are the new bundle's.
 */
export async function buildDist({ quiet = false } = {}) {
  const dist = join(root, 'dist');
  mkdirSync(dist, { recursive: true });
  // Beside dist/, not in it: the source maps' paths are relative to the folder built in.
  const next = join(root, `.dist-next-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  try {
    const result = await buildInto(next, quiet);
    moveInto(next, dist, 'launcher.json');
    return result;
  } finally {
    rmSync(next, { recursive: true, force: true });
  }
}

async function buildInto(out, quiet) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/cli.ts', tour: 'src/tour/main.ts' },
    outdir: out,
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
  const cli = readFileSync(join(out, 'cli.cjs'), 'utf8');
  const dynamic = cli.match(/\bimport\((["'`])[^"'`]*\1\)/g);
  if (dynamic)
    throw new Error(`dist/cli.cjs must not use import() of external modules: ${dynamic.join(', ')}`);
  // Loading the bundle has no side effects (the entry point is main()), so its facts can be read.
  const require = createRequire(import.meta.url);
  const bundle = join(out, 'cli.cjs');
  writeFileSync(join(out, 'launcher.json'), `${JSON.stringify(require(bundle).launcherFacts())}\n`);
  delete require.cache[bundle];
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const result = await buildDist();
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.cjs'));
  const sizes = outputs.map(([f, o]) => `dist/${basename(f)} ${(o.bytes / 1024).toFixed(0)} KB`).join(', ');
  console.error(`built ${sizes} in ${Math.round(performance.now() - started)} ms`);
}

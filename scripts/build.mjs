// Bundles src/ into dist/ with esbuild: one entry for the CLI (each command a lazily loaded
// chunk), one for the `npm start` tour. Runtime dependencies used by every command are bundled
// so start-up reads few files; the sandbox's server stack (fastify) stays in node_modules.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

export async function buildDist({ quiet = false } = {}) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/cli.ts', tour: 'src/tour/main.ts' },
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    external: ['fastify', '@fastify/*', 'playwright-core'],
    define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
    // Bundled CommonJS dependencies call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
    },
    logLevel: quiet ? 'error' : 'warning',
  });
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const result = await buildDist();
  const outputs = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
  console.error(`built ${outputs.length} files into dist/ in ${Math.round(performance.now() - started)} ms`);
}

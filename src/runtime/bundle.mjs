// What the CLI bundle (dist/cli.cjs) leaves out or replaces, and why. scripts/build.mjs turns
// this into esbuild options; the reasons live here, next to the list, so the two cannot part.
// (Plain JavaScript: the build script reads it with Node before anything is compiled.)

/** Packages left out of the bundle and loaded from node_modules when (if ever) needed. */
export const EXTERNAL = [
  // The sandbox's server stack: large, and only `svc sandbox start` and the tests load it.
  'fastify',
  '@fastify/*',
  // Drives a real browser in one test; never part of svc.
  'playwright-core',
];

/** Modules replaced by a stand-in: one that throws if it is ever used, or does less (when-exit). */
export const STUBS = [
  {
    module: './client-h2.js',
    importedFrom: /[\\/]undici[\\/]lib[\\/]dispatcher$/,
    contents:
      "module.exports = function connectH2 () { throw new Error('svc is built without HTTP/2 support') }",
    why:
      "undici's HTTP/2 client loads node:http2, node:tls and node:crypto when undici loads (~9 ms of " +
      'every command). svc never enables allowH2, and https still works (undici loads tls on connect).',
  },
];

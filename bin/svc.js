#!/usr/bin/env node
// The launcher (CommonJS, see bin/package.json). `svc --version` answers here without loading
// the program. Everything else runs dist/cli.cjs, compiled with V8's code cache: Node 20 has no
// module compile cache, and compiling the bundle's code from source is the largest part of
// svc's start-up (bench/RESULTS.md). One cache per top-level command (each covers the code its
// command runs; every word that is no command shares one, so there are at most as many as
// commands) lives in the user's cache directory, keyed by Node version and bundle identity (older
// ones are removed); it is written at exit when missing or rejected. SVC_NO_CODE_CACHE=1 turns it
// off.
// src/runtime/index.ts tells the whole start-up story (flags, cache, what the bundle leaves out).
'use strict';

const args = process.argv.slice(2);
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const bundle = path.join(__dirname, '..', 'dist', 'cli.cjs');

/**
 * The name of the code cache for this command line: its command (the first word, skipping global
 * options and their values; an alias names its command's cache), `other` for any word that is no
 * command, so a wrapper passing user input (`svc "$x"`) cannot fill the cache directory.
 */
function commandWord() {
  // Written by the build from the program: the global flags that take a value, the command words.
  const facts = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'dist', 'launcher.json'), 'utf8'));
  const valued = new Set(facts.valueFlags);
  for (let i = 0; i < args.length; i++) {
    if (valued.has(args[i])) i++;
    else if (!args[i].startsWith('-'))
      return Object.hasOwn(facts.commands || {}, args[i]) ? facts.commands[args[i]] : 'other';
  }
  return 'root';
}

/**
 * A boolean SVC_* variable, by the rule of src/config/env-flags.ts (the launcher loads nothing
 * from the bundle): 1/true/yes/on, 0/false/no/off or empty; anything else is 'invalid'. The
 * launcher does not refuse it itself: it runs without a cache and the CLI refuses it (exit 2)
 * in the output mode asked for (src/runtime/index.ts checkLauncherSwitches).
 */
function envSwitch(name) {
  const value = (process.env[name] || '').trim().toLowerCase();
  if (value === '' || ['0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  return 'invalid';
}

function cacheDir() {
  const env = process.env;
  if (envSwitch('SVC_NO_CODE_CACHE') !== false) return undefined;
  const home = require('node:os').homedir();
  const base =
    env.SVC_CACHE_DIR ||
    (process.platform === 'win32'
      ? path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'svc', 'Cache')
      : process.platform === 'darwin'
        ? path.join(home, 'Library', 'Caches', 'svc')
        : path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'svc'));
  const stat = fs.statSync(bundle);
  const identity = `${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  return { base, dir: path.join(base, `v8-${identity}`) };
}

function run() {
  let source;
  try {
    source = fs.readFileSync(bundle, 'utf8');
  } catch {
    process.stderr.write('error: svc is not built; run `npm install` (or `npm run build`) in its folder\n');
    process.exitCode = 1;
    return;
  }
  let cache;
  let cachedData;
  try {
    cache = cacheDir();
    if (cache) cachedData = fs.readFileSync(path.join(cache.dir, `${commandWord()}.bin`));
  } catch {
    // no cache yet
  }

  const script = new vm.Script(Module.wrap(source), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cli = new Module(bundle, module);
  cli.filename = bundle;
  cli.paths = Module._nodeModulePaths(path.dirname(bundle));
  script
    .runInThisContext()
    .call(cli.exports, cli.exports, Module.createRequire(bundle), cli, bundle, path.dirname(bundle));

  if (cache && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => {
      try {
        // A cache records V8's flags, and svc changes some (src/runtime/v8-flags.ts).
        cli.exports.restoreDefaultFlags();
        const data = script.createCachedData();
        // Not mkdirSync's recursive mode: it loops forever under /proc (src/system/directories.ts).
        cli.exports.makeDirectories(cache.dir, 0o700);
        for (const old of fs.readdirSync(cache.base)) {
          if (old.startsWith('v8-') && path.join(cache.base, old) !== cache.dir) {
            fs.rmSync(path.join(cache.base, old), { recursive: true, force: true });
          }
        }
        const file = path.join(cache.dir, `${commandWord()}.bin`);
        const temporary = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, data, { mode: 0o600 });
        fs.renameSync(temporary, file);
      } catch {
        // a read-only or full disk only costs speed
      }
    });
  }

  if (envSwitch('SVC_DEBUG_CODE_CACHE') === true)
    process.stderr.write(
      `code cache: ${cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none'}\n`,
    );
  cli.exports.main(args);
}

// A bad launcher switch goes the long way, so the CLI refuses it like every other bad value.
const switchesValid = ['SVC_NO_CODE_CACHE', 'SVC_DEBUG_CODE_CACHE'].every(
  (name) => envSwitch(name) !== 'invalid',
);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v') && switchesValid) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  run();
}

#!/usr/bin/env node
// The launcher (CommonJS, see bin/package.json). `svc --version` answers here without loading
// the program. Everything else runs dist/cli.cjs, compiled with V8's code cache: Node 20 has no
// module compile cache, and compiling the bundle's code from source is the largest part of
// svc's start-up (bench/RESULTS.md). One cache per top-level command (each covers the code its
// command runs; every word that is no command shares one, so there are at most as many as
// commands) lives in the svc-code-cache folder of the cache directory, keyed by Node version and
// bundle identity (older ones are removed, and only what svc wrote: SVC_CACHE_DIR may be a directory
// shared with other tools and users, so a link is never followed, and a svc-code-cache folder of
// another user's or writable by others is not used at all); it is written at exit when missing or
// rejected. SVC_NO_CODE_CACHE=1 turns it off.
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
let launcherFacts;
/** Written by the build from the program: the global flags that take a value, the command words. */
function facts() {
  launcherFacts ??= JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'dist', 'launcher.json'), 'utf8'));
  return launcherFacts;
}

function commandWord() {
  const { valueFlags, plainFlags, commands } = facts();
  const valued = new Set(valueFlags);
  const plain = new Set(plainFlags || []);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (valued.has(arg)) i++;
    else if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-' && !plain.has(arg)) {
      // A group of short flags, read letter by letter as src/cli-argv.ts argvTokens reads it:
      // `-yp NAME` is `-y -p NAME` (s25: NAME was taken for the command), `-ypNAME` too; a letter
      // no option's (h included) ends the group, as commander hands the rest on.
      for (let at = 1; at < arg.length; at++) {
        const letter = `-${arg[at]}`;
        if (valued.has(letter)) {
          if (at === arg.length - 1) i++;
          break;
        }
        if (!plain.has(letter)) break;
      }
    } else if (!arg.startsWith('-')) return Object.hasOwn(commands || {}, arg) ? commands[arg] : 'other';
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

/** A cache folder's name: `v8-<node version>-<arch>-<bundle size>-<bundle mtime>`. */
const CACHE_NAME = /^v8-v\d+\.\d+\.\d+-[a-z0-9]+-\d+-\d+$/;

/**
 * The user's home directory: HOME when it is an absolute path, else (unset, empty or relative, as
 * in cron or `env -i`) the one the system's user list gives, as src/config/paths.ts homeDirectory
 * does; undefined when there is none, and then svc runs without a cache.
 */
function homeDirectory() {
  const os = require('node:os');
  const home = os.homedir();
  if (path.isAbsolute(home)) return home;
  try {
    const entry = os.userInfo().homedir;
    return path.isAbsolute(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why svc may not keep its cache in `dir`, or undefined when it may (or `dir` does not exist
 * yet): ssh's rule for ~/.ssh. SVC_CACHE_DIR may be a shared directory such as /tmp, where another
 * user could make svc-code-cache first and put links in it; svc neither writes its cache there
 * nor removes anything from it.
 */
function untrusted(dir) {
  let stat;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    return error.code === 'ENOENT' ? undefined : 'cannot be read';
  }
  if (stat.isSymbolicLink()) return 'is a symbolic link';
  if (!stat.isDirectory()) return 'is not a directory';
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return 'belongs to another user';
  if (process.platform !== 'win32' && (stat.mode & 0o022) !== 0) return 'is writable by other users';
  return undefined;
}

/**
 * Run as root (`sudo -E svc`, a CI container whose HOME the runner's uid owns), the owner of the
 * nearest directory of `dir` that exists when it is not root's: root makes no cache there. It would
 * stay root's, 0700, and that user's own runs would go without one, silently (review19c F6); a
 * cache is only speed, so root goes without instead. Undefined otherwise.
 */
function othersDirectory(dir) {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      const owner = fs.lstatSync(at).uid;
      return owner === 0 ? undefined : owner;
    } catch {
      if (at === path.dirname(at)) return undefined;
    }
  }
}

function debug(line) {
  if (envSwitch('SVC_DEBUG_CODE_CACHE') === true) process.stderr.write(`code cache: ${line}\n`);
}

/** svc's own cache directory by the platform's rule, or undefined when there is no home for it. */
function defaultCacheDir(env) {
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'svc', 'Cache');
  // A relative XDG_CACHE_HOME is ignored, as the XDG Base Directory spec says (src/config/paths.ts).
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  if (process.platform !== 'win32' && process.platform !== 'darwin' && xdg) return path.join(xdg, 'svc');
  const home = homeDirectory();
  if (home === undefined) return undefined;
  if (process.platform === 'win32') return path.join(home, 'AppData', 'Local', 'svc', 'Cache');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'svc');
  return path.join(home, '.cache', 'svc');
}

function cacheDir() {
  const env = process.env;
  if (envSwitch('SVC_NO_CODE_CACHE') !== false) return undefined;
  // A value the CLI refuses (an unexpanded `~` or `$HOME`: src/config/paths.ts, the rule from
  // dist/launcher.json) gets no cache: it would make `./~/…` before svc says it changed nothing.
  if (env.SVC_CACHE_DIR && new RegExp(facts().unexpandedDirectory || '^[~$]').test(env.SVC_CACHE_DIR)) {
    debug(`off (SVC_CACHE_DIR ${env.SVC_CACHE_DIR} is refused)`);
    return undefined;
  }
  const own = env.SVC_CACHE_DIR ? undefined : defaultCacheDir(env);
  if (!env.SVC_CACHE_DIR && own === undefined) return undefined;
  const base = path.join(env.SVC_CACHE_DIR || own, 'svc-code-cache');
  const problem = untrusted(base);
  if (problem) {
    debug(`off (${base} ${problem})`);
    return undefined;
  }
  const heir = othersDirectory(path.dirname(base));
  if (heir !== undefined) {
    debug(`off (${base} is in a directory of uid ${heir}, and this is root)`);
    return undefined;
  }
  const stat = fs.statSync(bundle);
  const identity = `${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  // Before the svc-code-cache folder, caches lay in svc's own default directory itself.
  return { base, legacy: own, dir: path.join(base, `v8-${identity}`) };
}

/**
 * A cache folder unused this long is another version's no one runs any more; one used since is
 * kept, a newer version's too: versions run in turn (a CI image's and the user's, an older one on
 * a shared home) each deleted the other's, so every start compiled from source (attack23b F5).
 * Its folder's mtime says when it was last used: a write in it sets it, and a start that uses a
 * cache sets it once a day (freshen).
 */
const CACHE_UNUSED_MS = 30 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** Marks the cache folder `dir` used now, at most once a day (one stat otherwise). */
function freshen(dir) {
  if (untrusted(dir)) return;
  try {
    if (Date.now() - fs.statSync(dir).mtimeMs < DAY_MS) return;
    const now = new Date();
    fs.utimesSync(dir, now, now);
  } catch {
    // a read-only disk only costs the folder's age
  }
}

/**
 * Removes the other caches in `parent` that svc wrote and that no start has used for
 * CACHE_UNUSED_MS: folders (real ones, not links, and the user's own) named like one that hold
 * only its `.bin` files (and `.tmp` files of an interrupted write). A folder holding anything else
 * is left whole, a link is left as it is (never followed), and nothing is removed recursively.
 */
function removeOldCaches(parent, keep) {
  if (untrusted(parent)) return;
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (!CACHE_NAME.test(name) || dir === keep || untrusted(dir)) continue;
    try {
      if (Date.now() - fs.lstatSync(dir).mtimeMs < CACHE_UNUSED_MS) continue;
      // withFileTypes: a link inside is no file (isFile() is false), so the folder is kept.
      const files = fs.readdirSync(dir, { withFileTypes: true });
      if (!files.every((f) => f.isFile() && /\.(bin|tmp)$/.test(f.name))) continue;
      for (const file of files) fs.unlinkSync(path.join(dir, file.name));
      fs.rmdirSync(dir);
    } catch {
      // not ours to remove
    }
  }
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
        // Made by another user meanwhile (a shared SVC_CACHE_DIR): not svc's to write in.
        if (untrusted(cache.base) || untrusted(cache.dir)) return;
        removeOldCaches(cache.base, cache.dir);
        if (cache.legacy) removeOldCaches(cache.legacy, cache.dir);
        const file = path.join(cache.dir, `${commandWord()}.bin`);
        const temporary = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, data, { mode: 0o600 });
        fs.renameSync(temporary, file);
      } catch {
        // a read-only or full disk only costs speed
      }
    });
  }

  if (cache && cachedData !== undefined && !script.cachedDataRejected) freshen(cache.dir);
  debug(cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none');
  cli.exports.main(args);
}

// A bad launcher switch goes the long way, so the CLI refuses it like every other bad value.
const switchesValid = ['SVC_NO_CODE_CACHE', 'SVC_DEBUG_CODE_CACHE'].every(
  (name) => envSwitch(name) !== 'invalid',
);
if (require.main !== module) {
  // Required by a test (test/e2e/launcher.test.ts), which checks where the cache would go.
  module.exports = { cacheDir };
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-v') && switchesValid) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  run();
}

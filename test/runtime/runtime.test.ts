import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { globalFlags, launcherFacts, valueFlags } from '../../src/cli.js';
import { targetCommand } from '../../src/cli-argv.js';
import { createContext } from '../../src/context.js';
import { restoreDefaultFlags, runtimeFor, withCompactHeap } from '../../src/runtime/index.js';
import { fakeIO, runInProcess, testDeps } from '../helpers/context.js';

// The same object src/runtime/v8-flags.ts gets from createRequire('node:v8').
const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');

describe('the runtime module', () => {
  afterEach(() => vi.restoreAllMocks());

  it('changes no V8 flag when the HTTP layer or the CLI is imported', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    vi.resetModules();
    await import('../../src/http/undici.js');
    await import('../../src/http/client.js');
    await import('../../src/cli.js');
    expect(set).not.toHaveBeenCalled();
  });

  it.each([
    [['tenants', 'ls'], ['--liftoff-only']],
    [['-p', 'prod', '--tenant', 't1', 'roles', 'ls'], ['--liftoff-only']],
    [['--version'], ['--liftoff-only']],
    [['sandbox', 'start', '--port', '0'], []],
    [['--base-url', 'http://x', 'sandbox', 'start'], []],
  ])('main() gives `svc %s` the runtime %j before its first request', (argv, flags) => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    runtimeFor(targetCommand(argv, globalFlags())).beforeHttp?.();
    expect(set.mock.calls.map(([flag]) => flag)).toEqual(flags);
  });

  it('the Context applies it once, just before it makes the HTTP client', async () => {
    const beforeHttp = vi.fn();
    const ctx = createContext(
      {
        ...testDeps(fakeIO().io, { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_CONFIG_DIR: '/nonexistent' }),
        beforeHttp,
      },
      {},
    );
    expect(beforeHttp).not.toHaveBeenCalled();
    await ctx.api();
    await ctx.platform();
    expect(beforeHttp).toHaveBeenCalledTimes(1);
    await ctx.close();
  });

  it('restores every flag it may change before a code cache is written', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    restoreDefaultFlags();
    expect(set.mock.calls[0]?.[0]?.split(' ')).toEqual([
      '--no-liftoff-only',
      '--wasm-tier-up',
      '--wasm-dynamic-tiering',
      '--heap-growing-percent=0',
    ]);
  });

  it('keeps the heap compact only while a bulk run runs, even when it fails', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    await expect(
      withCompactHeap(async () => {
        expect(set.mock.calls.map(([f]) => f)).toEqual(['--heap-growing-percent=30']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(set.mock.calls.map(([f]) => f)).toEqual(['--heap-growing-percent=30', '--heap-growing-percent=0']);
  });

  it('gives the launcher the global flags that take a value, from the program itself', () => {
    expect(valueFlags()).toEqual([
      '-p',
      '--profile',
      '--base-url',
      '--app-url',
      '--tenant',
      '--org',
      '--timeout',
    ]);
    // test/global-setup.ts built dist/ before the tests.
    const launcher = JSON.parse(readFileSync(new URL('../../dist/launcher.json', import.meta.url), 'utf8'));
    expect(launcher).toEqual(launcherFacts());
    // The command words and their caches: an alias shares its command's (every other word: other).
    expect(launcher.valueFlags).toEqual(valueFlags());
    expect(launcher.commands).toMatchObject({ roles: 'roles', role: 'roles', help: 'help' });
    expect(launcher.commands.other).toBeUndefined();
  });
});

describe('the launcher’s switches, read again by the CLI', () => {
  // bin/svc.js leaves a bad value to the CLI, so the error follows the output mode like any other.
  it.each<[string[], string]>([
    [
      ['tenants', 'ls'],
      'error: SVC_NO_CODE_CACHE must be 1, true, yes or on (or 0, false, no, off), got "maybe"\n',
    ],
    [
      ['tenants', 'ls', '--json'],
      '{"error":{"code":"usage","message":"SVC_NO_CODE_CACHE must be 1, true, yes or on (or 0, false, no, off), got \\"maybe\\"","exit_code":2}}\n',
    ],
    [
      ['--ndjson', '--help'],
      '{"error":{"code":"usage","message":"SVC_NO_CODE_CACHE must be 1, true, yes or on (or 0, false, no, off), got \\"maybe\\"","exit_code":2}}\n',
    ],
  ])(
    'a SVC_NO_CODE_CACHE that is not a boolean: svc %j exits 2 with the error in its mode',
    async (argv, stderr) => {
      expect(await runInProcess(argv, { SVC_NO_CODE_CACHE: 'maybe' })).toEqual({
        code: 2,
        stdout: '',
        stderr,
      });
    },
  );

  it('SVC_DEBUG_CODE_CACHE is read by the same rule', async () => {
    expect(await runInProcess(['--json', 'me'], { SVC_DEBUG_CODE_CACHE: 'please' })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^\{"error":\{"code":"usage","message":"SVC_DEBUG_CODE_CACHE must be/),
    });
  });
});

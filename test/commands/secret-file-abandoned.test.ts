/**
 * fix-files18 #5: a SecretFile that a command made and then neither wrote nor discarded (an error
 * path that forgot it) stayed in the module's set of files this process waits on, for as long as
 * the process ran: in one process (svc in-process, a test run), every later run with the same key
 * was refused as "another svc run (pid …) may still be waiting", and the file it made stayed. The
 * command's end (Context.close) now discards what it still holds, as a failed request does.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretFileFor, secretIntent } from '../../src/commands/replayed-creation.js';
import { SecretFile } from '../../src/system/secret-file.js';
import { testContext, useTempDirs } from '../helpers/context.js';
import { endedPid } from '../helpers/ended-pid.js';
import { useTempDir } from '../helpers/temp.js';

const dirs = useTempDirs();
const files = useTempDir('svc-secret-abandoned-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const MADE = 'a webhook to https://example.com/abandoned';
const FIND = 'see it with: svc webhooks ls';

describe('a secret file a command neither wrote nor discarded', () => {
  it('is discarded when the command ends: a file it made is removed', async () => {
    const { ctx } = testContext({ env: dirs() });
    const path = join(files, 'made.secret');
    await secretFileFor(ctx, path, `made-${Date.now()}`, MADE, FIND);
    expect(existsSync(path)).toBe(true);
    await ctx.close();
    expect(existsSync(path)).toBe(false);
  });

  it('an earlier run’s empty file it took over: left, and no longer waited on (the next run takes it)', async () => {
    const env = dirs();
    const path = join(files, 'taken.secret');
    const key = `taken-${Date.now()}`;
    // What a run killed in flight leaves: the empty file, and its record naming a pid now gone.
    const { ctx } = testContext({ env });
    const intent = secretIntent(ctx, key, MADE, FIND);
    writeFileSync(path, '', { mode: 0o600 });
    mkdirSync(intent.records, { recursive: true });
    const gone = endedPid();
    const { records, ...rest } = intent;
    const name = createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32);
    writeFileSync(join(records, `${name}.json`), JSON.stringify({ path: resolve(path), ...rest, pid: gone }));

    await secretFileFor(ctx, path, key, MADE, FIND);
    await ctx.close();
    expect(existsSync(path)).toBe(true);

    const next = await SecretFile.create(
      path,
      '--secret-file',
      secretIntent(testContext({ env }).ctx, key, MADE, FIND),
    );
    await next.write('whsec_0123456789');
    expect(existsSync(path)).toBe(true);
  });
});

/**
 * scripts/build.mjs builds into a folder of its own and moves each file into dist/ by a rename, so
 * a test run spawning svc while another run rebuilds it (test/global-setup.ts builds at every run
 * that spawns) never finds dist/ empty: it was removed first and rebuilt, and the other run's
 * spawns said "svc is not built" (speed3).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveInto } from '../../scripts/build.mjs';
import { tempDir } from '../helpers/temp.js';

describe('moveInto: a new build into dist/', () => {
  it('replaces each file in place, adds the new ones, drops the ones no longer built, and leaves no folder behind', () => {
    const root = tempDir('svc-build-move-');
    const dist = join(root, 'dist');
    const next = join(root, '.dist-next-1');
    mkdirSync(dist);
    mkdirSync(next);
    writeFileSync(join(dist, 'cli.cjs'), 'old');
    writeFileSync(join(dist, 'gone.cjs'), 'old');
    writeFileSync(join(next, 'cli.cjs'), 'new');
    writeFileSync(join(next, 'launcher.json'), '{}');
    moveInto(next, dist, 'launcher.json');
    expect(readdirSync(dist).sort()).toEqual(['cli.cjs', 'launcher.json']);
    expect(readFileSync(join(dist, 'cli.cjs'), 'utf8')).toBe('new');
    expect(existsSync(next)).toBe(false);
  });
});

/**
 * scripts/build.mjs builds into a folder of its own and moves each file into dist/ by a rename, so
 * a test run spawning svc while another run rebuilds it (test/global-setup.ts builds at every run
 * that spawns) never finds dist/ empty: it was removed first and rebuilt, and the other run's
 * spawns said "svc is not built" (speed3).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { moveInto } from '../../scripts/build.mjs';
import { tempDir } from '../helpers/temp.js';

/** Every file moved into place, in order: launcher.json must be the last (review28d L2). */
const moved = vi.hoisted(() => [] as string[]);
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const renameSync: typeof fs.renameSync = (from, to) => {
    moved.push(basename(String(to)));
    fs.renameSync(from, to);
  };
  // A build folder listed with launcher.json first: a move in listing order would not end with it.
  const readdirSync = ((path: string, ...rest: unknown[]) => {
    const names = (fs.readdirSync as (...a: unknown[]) => string[])(path, ...rest);
    return String(path).includes('.dist-next-')
      ? [...names.filter((n) => n === 'launcher.json'), ...names.filter((n) => n !== 'launcher.json')]
      : names;
  }) as typeof fs.readdirSync;
  return { ...fs, default: { ...fs, renameSync, readdirSync }, renameSync, readdirSync };
});

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

  it('moves launcher.json last, even when the folder lists it first: its facts are the new bundle’s', () => {
    const root = tempDir('svc-build-move-order-');
    const dist = join(root, 'dist');
    const next = join(root, '.dist-next-2');
    mkdirSync(dist);
    mkdirSync(next);
    const names = ['a.cjs', 'cli.cjs', 'cli.cjs.map', 'launcher.json', 'tour.cjs', 'z.cjs'];
    for (const name of names) writeFileSync(join(next, name), name);
    moved.length = 0;
    moveInto(next, dist, 'launcher.json');
    expect([...moved].sort()).toEqual(names);
    expect(moved.at(-1)).toBe('launcher.json');
  });
});

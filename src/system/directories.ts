import { lchownSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Whom a directory or file made in `dir` is given to (config/store-directory.ts, heirOf), or undefined. */
export type Heir = (dir: string) => { uid: number; gid: number } | undefined;

/**
 * `mkdir -p DIR` with `mode` for each directory it makes, one part at a time, in as many steps as
 * DIR has parts. Node's `mkdirSync(dir, { recursive: true })` loops forever, at full CPU and deaf
 * to signals, where mkdir answers ENOENT although the parent exists (under /proc); here that
 * ENOENT is thrown. A file in the way (DIR itself or a part of it) is ENOTDIR, and is left as it
 * is; an existing directory is left as it is too (its mode included). Each directory made is given
 * to `heir` of its parent, when it names someone (root making them for $HOME's owner), by lchown,
 * which follows no link: the owner can rename what is in their directory, and a link put in the
 * place of the one just made must not hand them its target. Returns the directories it made,
 * outermost first.
 */
export function makeDirectories(dir: string, mode: number, heir?: Heir): string[] {
  const missing: string[] = [];
  for (let path = resolve(dir); ; ) {
    const found = existing(path);
    if (found === 'directory') break;
    if (found === 'other') throw notADirectory(path);
    missing.unshift(path);
    const parent = dirname(path);
    if (parent === path) break;
    path = parent;
  }
  const made: string[] = [];
  for (const path of missing) {
    try {
      mkdirSync(path, { mode });
      made.push(path);
      const owner = heir?.(dirname(path));
      if (owner !== undefined) lchownSync(path, owner.uid, owner.gid);
    } catch (error) {
      // made meanwhile by another process
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || existing(path) !== 'directory') throw error;
    }
  }
  return made;
}

/** What is at `path`: a directory, something else, or nothing (ENOENT); any other failure is thrown. */
function existing(path: string): 'directory' | 'other' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

function notADirectory(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
    code: 'ENOTDIR',
    syscall: 'mkdir',
    path,
  });
}

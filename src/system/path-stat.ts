import { lstatSync, type Stats, statSync } from 'node:fs';

/**
 * What is at a path, or undefined only when nothing is there (ENOENT); every other error is
 * thrown. Not Node's `throwIfNoEntry: false`: Node 24's statSync answers undefined for ENOTDIR
 * too (a part of the path is a file), where Node 20 throws, so a refusal of a path under a file
 * was made on one Node and missed on the other (CI's Node 24 leg; `-o FILE/x` said nothing of it
 * until the write). One rule for every look at a path that may be missing, so both Nodes agree.
 */
export function statUnlessMissing(path: string): Stats | undefined {
  return unlessMissing(() => statSync(path));
}

/** statUnlessMissing of the path itself, not where it links to (lstat). */
export function lstatUnlessMissing(path: string): Stats | undefined {
  return unlessMissing(() => lstatSync(path));
}

function unlessMissing(look: () => Stats): Stats | undefined {
  try {
    return look();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

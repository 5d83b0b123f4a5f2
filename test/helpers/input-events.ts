/**
 * The events `readInput` (src/bulk/readers.ts) gives for a file's content, and the parts the
 * reader's tests compare: each record's line and fields, each problem's line and words.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type InputEvent, readInput } from '../../src/bulk/readers.js';

/** A reader of files written (by name) in the temporary directory `dir`. */
export function inputReader(dir: string): (name: string, content: string | Buffer) => Promise<InputEvent[]> {
  return async (name, content) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    const events: InputEvent[] = [];
    for await (const event of readInput(path, name)) events.push(event);
    return events;
  };
}

export const records = (events: InputEvent[]) =>
  events.flatMap((e) => (e.kind === 'record' ? [[e.line, e.fields]] : []));
export const problems = (events: InputEvent[]) =>
  events.flatMap((e) => (e.kind === 'problem' ? [[e.line, e.message]] : []));

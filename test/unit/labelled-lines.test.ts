/**
 * One rule for the lines svc labels (`warning: `, `✓ `): what follows the label goes on in lower
 * case, as `error: ` lines do (attack26a: `warning: 1 of 1 ids …` beside `warning: Store this key
 * now: … later.`, the server's sentence). svc's own messages are checked where they are written
 * (every literal first argument of `.warn(` and `.success(` in src/), a server's by afterLabel.
 * A line with no label (`.info(`, `.notice(`, a list's `empty:`) is held to the same form since
 * session 28 (fixout3): a lower-case fragment without a closing full stop (`nothing changed: …`,
 * `dry run: …`, `sandbox stopped`), as gh prints them; it was a mix of sentences and fragments.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterLabel } from '../../src/output/format.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('afterLabel', () => {
  it.each([
    [
      'Store this key now: it is shown only once and cannot be retrieved later.',
      'store this key now: it is shown only once and cannot be retrieved later',
    ],
    [
      'Store the signing secret now: it is not shown again (rotate it to get a new one).',
      'store the signing secret now: it is not shown again (rotate it to get a new one)',
    ],
    [
      'store the client secret now: it is not shown again',
      'store the client secret now: it is not shown again',
    ],
    // Acronyms and identifiers stay as written; an ellipsis is not a full stop.
    ['API keys outlive a grant.', 'API keys outlive a grant'],
    ['OAuth clients are listed whole', 'OAuth clients are listed whole'],
    ['SVC_TOKEN is set', 'SVC_TOKEN is set'],
    ['X-Tenant-Id is missing', 'X-Tenant-Id is missing'],
    ['Wait...', 'wait...'],
    // A name at the start stays a name, and an abbreviation keeps its dot (review27a F8): only a
    // common first word is lowered.
    ['Acme Treasury keys are shown once.', 'Acme Treasury keys are shown once'],
    ['Stripe requires TLS 1.2.', 'Stripe requires TLS 1.2'],
    ['Store it in a vault, e.g.', 'store it in a vault, e.g.'],
    ['Keep it safe, etc.', 'keep it safe, etc.'],
  ])('%j → %j', (given, written) => {
    expect(afterLabel(given)).toBe(written);
  });
});

describe("svc's own labelled lines", () => {
  it('start lower case after warning: and ✓ (an identifier or acronym may stay capitalised)', () => {
    const wrong: string[] = [];
    for (const file of sources(join(__dirname, '../../src'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\.(warn|success)\(\s*(['"`])([^'"`]{0,40})/g)) {
        const start = match[3]!;
        if (start.startsWith('${')) continue;
        if (/^[A-Z][a-z]+(?![\w-])/.test(start)) wrong.push(`${file}: .${match[1]}(${match[2]}${start}…`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** Files whose unlabelled lines are not yet in the form (fixout3's report lists them). */
const UNLABELLED_LEFT: readonly string[] = [];

describe("svc's own unlabelled lines (fixout3)", () => {
  it('start lower case and end without a full stop (an identifier or acronym may stay capitalised)', () => {
    const wrong: string[] = [];
    for (const file of sources(join(__dirname, '../../src'))) {
      if (UNLABELLED_LEFT.some((left) => file.endsWith(left))) continue;
      const text = readFileSync(file, 'utf8');
      // The whole literal when it is one ('…', "…", or a template without a nested one).
      for (const match of text.matchAll(
        /(?:\.(?:info|notice)\(|\bempty: )\s*(?:[^'"`(]*\? )?(['"`])((?:(?!\1)[^\\\n]|\\.)*)\1?/g,
      )) {
        const [quote, body] = [match[1]!, match[2]!];
        if (/^[A-Z][a-z]+(?![\w-])/.test(body))
          wrong.push(`${file}: ${quote}${body.slice(0, 60)}… starts a sentence`);
        const closed =
          text.slice(match.index! + match[0].length - 1, match.index! + match[0].length) === quote;
        if (closed && /[^.]\.$/.test(body) && !/(e\.g|etc)\.$/.test(body))
          wrong.push(`${file}: …${body.slice(-60)}${quote} ends with a full stop`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

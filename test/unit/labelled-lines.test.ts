/**
 * One rule for the lines svc labels (`warning: `, `✓ `): what follows the label goes on in lower
 * case, as `error: ` lines do (attack26a: `warning: 1 of 1 ids …` beside `warning: Store this key
 * now: … later.`, the server's sentence). svc's own messages are checked where they are written
 * (every literal first argument of `.warn(` and `.success(` in src/), a server's by afterLabel.
 * A line with no label (`.info(`, `.notice(`, a list's `empty:`) is held to the same form since
 * session 28 (fixout3): a lower-case fragment without a closing full stop (`nothing changed: …`,
 * `dry run: …`, `sandbox stopped`), as gh prints them; it was a mix of sentences and fragments.
 * Since review28b L2 the scan reads the code, not a regex over the text: every literal that is
 * such a line's start or end — `.info(…)`/`.notice(…)`'s argument, `empty:`'s value (an
 * `async () =>` too), `get empty()`'s returns — every branch of a ternary, a template over many
 * lines; it missed `: 'The dead-letter queue is empty.'` and `empty: async () => \`Nothing …\``.
 * A line built by a helper (`summaryLine`, `nothingChanged`) is still its commands' tests' to pin.
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

/** Files whose unlabelled lines are not yet in the form (none since review28b L1). */
const UNLABELLED_LEFT: readonly string[] = [];

/** A string literal of a source file: where it is, its quote, its text (`{…}` for each expression). */
interface Literal {
  start: number;
  end: number;
  quote: string;
  body: string;
}

/**
 * The file with every literal's and comment's text blanked (`_`, spaces), so that brackets match
 * and anchors are found in code only, and its literals, a template's expressions read as code
 * (their literals are kept too, inside a `${`, so never at a line's top level).
 */
function masked(text: string): { code: string; literals: Literal[] } {
  const out = text.split('');
  const literals: Literal[] = [];
  const blank = (from: number, to: number, by: string) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = by;
  };
  const literal = (at: number): number => {
    const quote = text[at]!;
    let i = at + 1;
    let body = '';
    while (i < text.length && text[i] !== quote && (quote === '`' || text[i] !== '\n')) {
      if (text[i] === '\\') {
        body += text.slice(i, i + 2);
        blank(i, i + 2, '_');
        i += 2;
      } else if (quote === '`' && text.startsWith('${', i)) {
        body += '{…}';
        i = code(i + 2, true);
      } else {
        body += text[i];
        blank(i, i + 1, '_');
        i++;
      }
    }
    literals.push({ start: at, end: i + 1, quote, body });
    return i + 1;
  };
  // A `/` that starts a regular expression (not a division): after an operator or an opening.
  const regexAt = (i: number) => /(^|[(,=:[!&|?{};]|\breturn)\s*$/.test(text.slice(Math.max(0, i - 20), i));
  const code = (from: number, closing: boolean): number => {
    let depth = 0;
    let i = from;
    while (i < text.length) {
      const c = text[i]!;
      if (c === "'" || c === '"' || c === '`') i = literal(i);
      else if (text.startsWith('//', i)) {
        const end = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
        blank(i, end, ' ');
        i = end;
      } else if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i) + 2;
        blank(i, end, ' ');
        i = end;
      } else if (c === '/' && regexAt(i)) {
        let k = i + 1;
        for (let inClass = false; k < text.length && text[k] !== '\n'; k++) {
          if (text[k] === '\\') k++;
          else if (text[k] === '[') inClass = true;
          else if (text[k] === ']') inClass = false;
          else if (text[k] === '/' && !inClass) break;
        }
        blank(i + 1, k, '_');
        i = k + 1;
      } else {
        if (c === '{') depth++;
        if (c === '}' && depth-- === 0 && closing) return i + 1;
        i++;
      }
    }
    return i;
  };
  code(0, false);
  return { code: out.join(''), literals };
}

/** The index of the bracket closing the one at `open` in masked code (or of a top-level `,`/`;` when `value`). */
function closeOf(code: string, open: number, value = false): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i]!;
    if (value && depth === 0 && (c === ',' || c === ';')) return i;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && (--depth < 0 || (!value && depth === 0))) return i;
  }
  return code.length;
}

/**
 * The literals that are a line's whole text, or its start or end, in `[from, to)` of the code:
 * those at its top level (every branch of a ternary; not a nested call's argument nor a
 * template's `${}`), a line's start unless `+` is before it, its end unless `+` follows.
 */
function lineLiterals(code: string, literals: Literal[], from: number, to: number) {
  return literals
    .filter((l) => l.start >= from && l.end <= to)
    .filter((l) => {
      let depth = 0;
      for (const c of code.slice(from, l.start)) {
        if ('([{'.includes(c)) depth++;
        else if (')]}'.includes(c)) depth--;
      }
      return depth === 0;
    })
    .map((l) => ({
      ...l,
      starts: !/\+\s*$/.test(code.slice(from, l.start)),
      ends: !/^\s*[+.]/.test(code.slice(l.end, to)),
    }));
}

/** Where an unlabelled line's text is: `.info(…)`/`.notice(…)`'s argument, `empty:`'s value, `get empty()`'s returns. */
function lineSpans(code: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const returns = (open: number) => {
    const close = closeOf(code, open);
    for (const r of code.slice(open, close).matchAll(/\breturn\b/g)) {
      const at = open + r.index! + r[0].length;
      spans.push([at, closeOf(code, at, true)]);
    }
  };
  for (const m of code.matchAll(/\.(?:info|notice)\(/g)) {
    const open = m.index! + m[0].length - 1;
    spans.push([open + 1, closeOf(code, open)]);
  }
  for (const m of code.matchAll(/\bempty:/g)) {
    const at = m.index! + m[0].length;
    const end = closeOf(code, at, true);
    const body = /^\s*(?:async\s*)?\([^)]*\)\s*=>\s*\{/.exec(code.slice(at, end));
    if (body) returns(at + body[0].length - 1);
    else spans.push([at, end]);
  }
  for (const m of code.matchAll(/\bget empty\(\)\s*(?::[^{]*)?\{/g)) returns(m.index! + m[0].length - 1);
  return spans;
}

describe("svc's own unlabelled lines (fixout3)", () => {
  it('start lower case and end without a full stop (an identifier or acronym may stay capitalised)', () => {
    const wrong: string[] = [];
    for (const file of sources(join(__dirname, '../../src'))) {
      if (UNLABELLED_LEFT.some((left) => file.endsWith(left))) continue;
      const { code, literals } = masked(readFileSync(file, 'utf8'));
      for (const [from, to] of lineSpans(code)) {
        for (const { quote, body, starts, ends } of lineLiterals(code, literals, from, to)) {
          if (starts && /^[A-Z][a-z]+(?![\w-])/.test(body))
            wrong.push(`${file}: ${quote}${body.slice(0, 60)}… starts a sentence`);
          if (ends && /[^.]\.$/.test(body) && !/(e\.g|etc)\.$/.test(body))
            wrong.push(`${file}: …${body.slice(-60)}${quote} ends with a full stop`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

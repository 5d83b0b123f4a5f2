import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { flagWords } from '../../src/commands/listing.js';
import { shellQuote, shellWord } from '../../src/system/shell-words.js';
import { needs } from '../helpers/needs.js';

/** Values a printed command may hold: quotes, shell syntax, and backslashes where fish reads escapes. */
const TEXTS = [
  "o'brien x",
  '$HOME `id` "a" \\n',
  'tab\there',
  'ünï ©',
  '-n',
  "''",
  '=p.json',
  'a\\b c',
  'pl\\\\an.json',
  "it\\'s",
  "\\'",
  'dir\\',
  '\\',
  'a\\\\',
  "x'\\\\'y\nz",
];

// A listing's continuation is a command line svc prints for the user to run again: each filter
// value must come back from the shell as exactly one word, unchanged.
describe('shellWord', () => {
  it.each([
    ['an id', 'usr_lead', 'usr_lead'],
    ['an instant', '2026-11-24T08:00:00Z', '2026-11-24T08:00:00Z'],
    ['an action', 'role.assigned', 'role.assigned'],
    ['a space', 'tenant admin', "'tenant admin'"],
    ['a quote', "o'brien", "'o'\\''brien'"],
    ['shell syntax', '$(rm -rf ~); `x` * ?', "'$(rm -rf ~); `x` * ?'"],
    ['a tilde', '~root', "'~root'"],
    // zsh expands a leading `=` to a command's path (review s10 b, 1); inside a word it is plain.
    ['a leading =', '=p.json', "'=p.json'"],
    ['an inner =', 'url=https://a.example', 'url=https://a.example'],
    ['empty', '', "''"],
    // fish reads `\\` and `\'` inside single quotes as escapes: a backslash goes outside them (review s10 b, 4).
    ['a backslash', 'a\\b c', "'a'\\\\'b c'"],
    ['a trailing backslash', 'dir\\', "'dir'\\\\"],
  ])('%s', (_name, text, word) => {
    expect(shellWord(text)).toBe(word);
  });

  it('comes back from sh as one word, byte for byte', () => {
    for (const text of TEXTS) {
      const printed = execFileSync('sh', ['-c', `printf '%s' ${shellWord(text)}`], { encoding: 'utf8' });
      expect(printed).toBe(text);
    }
  });
});

// The same line pasted into each shell a user may have: bash, zsh (macOS's default) and fish.
describe.each(['bash', 'zsh', 'fish'] as const)('a printed word pasted into %s', (shell) => {
  needs(shell).describe(shell, () => {
    it.each(TEXTS.map((text) => [JSON.stringify(text), text]))('%s comes back byte for byte', (_, text) => {
      const line = `printf '%s|' ${shellWord(text)} ${shellQuote(text)}`;
      expect(execFileSync(shell, ['-c', line], { encoding: 'utf8' })).toBe(`${text}|${text}|`);
    });
  });
});

describe('flagWords', () => {
  it('writes the flags given a value, in order, each value one word', () => {
    expect(
      flagWords([
        ['--status', 'failed'],
        ['--event-type', undefined],
        ['--role', 'tenant admin'],
        ['--since', '2026-11-24T08:00:00Z'],
      ]),
    ).toBe(" --status failed --role 'tenant admin' --since 2026-11-24T08:00:00Z");
    expect(flagWords([['--status', undefined]])).toBe('');
  });
});

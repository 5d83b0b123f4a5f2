import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { flagWords, Listing } from '../../src/commands/listing.js';
import { SvcError } from '../../src/errors.js';
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

// A page of another server's size (a numbered page, a link as written) may hold more than --limit
// lets print: the listing stops within it and its cursor continues there (review19 F5).
describe('Listing.items within a page', () => {
  type Item = { id: string };
  const ids = (n: number, from = 0): Item[] => Array.from({ length: n }, (_, i) => ({ id: `i${from + i}` }));
  /** Runs a listing over pages answered by cursor (undefined: the first), recording what was asked. */
  async function list(
    options: { limit: number | undefined; cursor?: string; all?: boolean },
    pages: Record<string, { items: Item[]; next_cursor: string | null }>,
  ) {
    const listing = new Listing<Item>({ cursor: undefined, all: false, ...options }, 100);
    const asked: Array<{ limit: number; cursor?: string }> = [];
    const shown: string[] = [];
    for await (const item of listing.items(async (page) => {
      asked.push(page);
      return pages[page.cursor ?? 'first']!;
    })) {
      shown.push(item.id);
    }
    return { shown, asked, next: listing.next, count: listing.shown };
  }
  const page2 = 'svc-page:page=2&per_page=5';

  it('cuts a page of svc’s own at --limit and names the same page with #skip', async () => {
    const r = await list(
      { limit: 7 },
      {
        first: { items: ids(5), next_cursor: page2 },
        [page2]: { items: ids(5, 5), next_cursor: 'svc-page:page=3&per_page=5' },
      },
    );
    expect(r).toEqual({
      shown: ['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6'],
      asked: [{ limit: 7 }, { limit: 2, cursor: page2 }],
      next: `${page2}#skip=2&printed=i5,i6`,
      count: 7,
    });
  });

  it('a cursor with #skip skips those items of its page, and may cut it again', async () => {
    const within = `${page2}#skip=2`;
    const r = await list(
      { limit: 2, cursor: within },
      {
        [within]: { items: ids(5, 5), next_cursor: 'svc-page:page=3&per_page=5' },
      },
    );
    expect([r.shown, r.next]).toEqual([['i7', 'i8'], `${page2}#skip=4&printed=i5,i6,i7,i8`]);
  });

  it('a page cut within, asked again after the list gained an item ahead of it, prints none of its printed items again', async () => {
    // Session 24's closing note: the cursor `#skip=2` alone skipped i4 and i5 of the page now
    // starting one item earlier, and printed i6 a second time.
    const before = await list(
      { limit: 7 },
      {
        first: { items: ids(5), next_cursor: page2 },
        [page2]: { items: ids(5, 5), next_cursor: 'svc-page:page=3&per_page=5' },
      },
    );
    const within = before.next as string;
    const r = await list(
      { limit: 2, cursor: within },
      {
        [within]: { items: ids(5, 4), next_cursor: 'svc-page:page=3&per_page=5' },
      },
    );
    expect([r.shown, r.next]).toEqual([['i7', 'i8'], 'svc-page:page=3&per_page=5#skip=0&printed=i7,i8']);
  });

  it('a page that ends exactly at --limit continues with the next page’s cursor, naming the items printed last when it is a position', async () => {
    const within = `${page2}#skip=2`;
    const r = await list(
      { limit: 3, cursor: within },
      {
        [within]: { items: ids(5, 5), next_cursor: 'svc-page:page=3&per_page=5' },
      },
    );
    expect([r.shown, r.next]).toEqual([
      ['i7', 'i8', 'i9'],
      'svc-page:page=3&per_page=5#skip=0&printed=i7,i8,i9',
    ]);
  });

  it('… the last 10 printed, over pages; a cursor of the server’s own or of an id as it is', async () => {
    const pages = (next: string) => ({
      first: { items: ids(8), next_cursor: page2 },
      [page2]: { items: ids(8, 8), next_cursor: next },
    });
    const offset = await list({ limit: 16 }, pages('svc-page:offset=16'));
    const keys = Array.from({ length: 10 }, (_, i) => `i${i + 6}`).join(',');
    expect(offset.next).toBe(`svc-page:offset=16#skip=0&printed=${keys}`);
    for (const next of ['c3', 'svc-page:starting_after=i15']) {
      expect((await list({ limit: 16 }, pages(next))).next).toBe(next);
    }
  });

  it('the items a cursor names as printed are left out of every page the command reads, and the ones it did not meet are handed on (review24a M1: a gain of 4 under --limit 3 printed i2 again)', async () => {
    // An offset list of 12; the command before printed i0 i1 i2, and 4 items came at its head.
    const offsetPages = (list: Item[]) => {
      const pages: Record<string, { items: Item[]; next_cursor: string | null }> = {};
      for (let at = 0; at < list.length; at += 3) {
        const next = at + 3 < list.length ? `svc-page:offset=${at + 3}` : null;
        pages[at === 0 ? 'first' : `svc-page:offset=${at}`] = {
          items: list.slice(at, at + 3),
          next_cursor: next,
        };
      }
      return pages;
    };
    const before = await list({ limit: 3 }, offsetPages(ids(12)));
    expect(before.next).toBe('svc-page:offset=3#skip=0&printed=i0,i1,i2');
    const grown = [...['n0', 'n1', 'n2', 'n3'].map((id) => ({ id })), ...ids(12)];
    const pages = offsetPages(grown);
    pages[before.next!] = pages['svc-page:offset=3']!;
    const after = await list({ limit: 3, cursor: before.next! }, pages);
    // Offset 3 is [n3, i0, i1]: n3 alone prints; offset 6 is [i2, i3, i4]: i2 is left out too.
    expect([after.shown, after.next]).toEqual([
      ['n3', 'i3', 'i4'],
      'svc-page:offset=9#skip=0&printed=n3,i3,i4',
    ]);
    // A command that meets none of them hands them on, before the items it printed.
    pages['svc-page:offset=12#skip=0&printed=i0,i1,i2'] = {
      items: grown.slice(12, 13),
      next_cursor: 'svc-page:offset=13',
    };
    const short = await list({ limit: 1, cursor: 'svc-page:offset=12#skip=0&printed=i0,i1,i2' }, pages);
    expect([short.shown, short.next]).toEqual([['i8'], 'svc-page:offset=13#skip=0&printed=i0,i1,i2,i8']);
  });

  it('--all without --limit prints every item of every page', async () => {
    const r = await list(
      { limit: undefined, all: true },
      {
        first: { items: ids(5), next_cursor: page2 },
        [page2]: { items: ids(5, 5), next_cursor: null },
      },
    );
    expect([r.shown.length, r.next, r.asked]).toEqual([
      10,
      null,
      [{ limit: 100 }, { limit: 100, cursor: page2 }],
    ]);
  });

  // Session 20: a first page larger than --limit was printed whole (--limit 2 printed 3).
  it('a first page or a server’s cursor larger than --limit is cut, its cursor carrying the page', async () => {
    const first = await list({ limit: 2 }, { first: { items: ids(3), next_cursor: 'c2' } });
    expect([first.shown, first.next]).toEqual([['i0', 'i1'], 'svc-page:cursor=#skip=2']);
    const server = await list({ limit: 2, cursor: 'c2' }, { c2: { items: ids(3, 3), next_cursor: 'c3' } });
    expect([server.shown, server.next]).toEqual([['i3', 'i4'], 'svc-page:cursor=c2#skip=2']);
    const within = 'svc-page:cursor=c2#skip=2';
    const rest = await list(
      { limit: 2, cursor: within },
      { [within]: { items: ids(3, 3), next_cursor: 'c3' }, c3: { items: ids(3, 6), next_cursor: 'c4' } },
    );
    expect([rest.shown, rest.next]).toEqual([['i5', 'i6'], 'svc-page:cursor=c3#skip=1']);
  });

  // Session 20: the count counted the items of a #skip page printed by the command before.
  it('a failure after a page of a #skip cursor counts the items printed, not the ones skipped', async () => {
    const within = `${page2}#skip=3`;
    const listing = new Listing<Item>({ limit: undefined, cursor: within, all: true }, 100);
    const shown: string[] = [];
    const run = async () => {
      for await (const item of listing.items(async (page) => {
        if (page.cursor === within) return { items: ids(5, 5), next_cursor: 'svc-page:page=3&per_page=5' };
        throw new SvcError('failure', 'the server failed (HTTP 500)');
      })) {
        shown.push(item.id);
      }
    };
    await expect(run()).rejects.toThrow(
      'the listing is incomplete: it stopped after 2 items, when the next page failed: the server failed (HTTP 500)',
    );
    expect(shown).toEqual(['i8', 'i9']);
  });
});

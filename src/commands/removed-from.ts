import { andList } from '../output/format.js';

/**
 * One list field a repeated flag replaces, in words: the key of the object, the noun of one of its
 * values (`redirect URI`), and how a value is shown (a URL with its secrets masked).
 */
export interface ReplacedList<T> {
  key: keyof T & string;
  noun: string;
  shown?: (value: string) => string;
}

/**
 * What an update took out of the lists it replaced, as the end of its ✓ line (`; removed the
 * redirect URIs a, b and the scope x`), or ''. A flag that replaces a list (`oauth update
 * --redirect-uri`, `webhooks update --event-type`) reads like one that adds to it (`roles update
 * --add-permission`): the values an integration used are gone, which the changed fields alone do
 * not say (examples16 E5, attack26a F4). One rule for every verb that replaces a list.
 */
export function removedFrom<T>(before: T, after: T, lists: readonly ReplacedList<T>[]): string {
  const gone = lists.flatMap(({ key, noun, shown }) => {
    const kept = new Set<string>((after[key] as readonly string[] | undefined) ?? []);
    const removed = ((before[key] as readonly string[] | undefined) ?? []).filter(
      (value) => !kept.has(value),
    );
    const words = shown ? removed.map(shown) : removed;
    return removed.length === 0 ? [] : [`the ${noun}${removed.length === 1 ? '' : 's'} ${words.join(', ')}`];
  });
  return gone.length === 0 ? '' : `; removed ${andList(gone)}`;
}

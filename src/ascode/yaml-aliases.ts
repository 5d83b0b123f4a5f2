// The aliases of an access file (`*why`), read in linear time. The yaml package finds each alias's
// anchor by walking the document's anchors and aliases from the start (Alias.resolve), so its
// toJS is quadratic in the number of aliases (20,000 aliases took 15 s); here each alias's anchor
// is found in one pass, the expansion is bounded, and each anchor's value is built once.
import {
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type parseDocument,
  visit,
} from 'yaml';
import type { Problem } from './source.js';

/** How many values a file's aliases may add when expanded (a "billion laughs" file adds billions). */
export const MAX_ALIAS_EXPANSION = 1_000_000;

/** Each alias node's anchor node: the last one of its name before it. */
export type Anchors = ReadonlyMap<Node, Node>;

type YamlDoc = ReturnType<typeof parseDocument>;

function lineOf(node: Node, counter: LineCounter): number | undefined {
  const at = node.range?.[0];
  return at === undefined ? undefined : counter.linePos(at).line;
}

/**
 * Aliases used any number of times are fine; what is bounded is how many values they expand to,
 * all uses together, nested ones included — the one measure of an exponential file. The alias that
 * crosses the bound is named at its line, and so is one inside its own anchor (a value that
 * contains itself, which no access file means).
 */
export function readAliases(doc: YamlDoc, counter: LineCounter): { anchors: Anchors; problems: Problem[] } {
  const anchors = new Map<Node, Node>();
  const named = new Map<string, Node>();
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) {
        const target = named.get(node.source);
        if (target) anchors.set(node, target);
      } else if (node.anchor) named.set(node.anchor, node);
    },
  });
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let inside: { alias: Node & { source: string } } | undefined;
  const size = (node: unknown): number => {
    if (isAlias(node)) {
      const target = anchors.get(node);
      if (target && open.has(target)) inside ??= { alias: node };
      return target && !open.has(target) ? size(target) : 1;
    }
    if (isScalar(node) || !isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    open.add(node);
    let total = 1;
    for (const item of node.items) {
      total += isPair(item) ? size(item.key) + size(item.value) : size(item);
      if (total > MAX_ALIAS_EXPANSION) break;
    }
    open.delete(node);
    sizes.set(node, total);
    return total;
  };
  let added = 0;
  const problems: Problem[] = [];
  visit(doc, {
    Alias(_, alias) {
      added += size(alias);
      if (inside) {
        const { alias: at } = inside;
        problems.push({
          line: lineOf(at, counter),
          message: `*${at.source} is used inside its own anchor &${at.source} (a value that contains itself); write the values out`,
        });
        return visit.BREAK;
      }
      if (added <= MAX_ALIAS_EXPANSION) return undefined;
      problems.push({
        line: lineOf(alias, counter),
        message: `the file's aliases expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en')} values by *${alias.source} here (svc reads at most that many: aliases nested in aliases grow without end); repeat the values instead`,
      });
      return visit.BREAK;
    },
  });
  return { anchors, problems };
}

/**
 * The document's value, as the yaml package's toJS makes it (maps as plain objects, keys as text,
 * an anchor's value shared by its aliases), each anchor's value built once. Call after
 * readAliases found no problem: every alias has an anchor and none is inside its own.
 */
export function documentValue(doc: YamlDoc, anchors: Anchors): unknown {
  const built = new Map<Node, unknown>();
  const value = (node: unknown): unknown => {
    if (isAlias(node)) {
      const target = anchors.get(node);
      if (!target)
        throw new ReferenceError(
          `Unresolved alias (the anchor must be set before the alias): ${node.source}`,
        );
      return value(target);
    }
    if (node === null || node === undefined) return null;
    const known = built.get(node as Node);
    if (known !== undefined || built.has(node as Node)) return known;
    let result: unknown;
    if (isScalar(node)) result = typeof node.value === 'bigint' ? Number(node.value) : node.value;
    else if (isSeq(node))
      result = node.items.map((item) =>
        isPair(item) ? { [String(value(item.key))]: value(item.value) } : value(item),
      );
    else if (isMap(node)) {
      const object: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = value(pair.key);
        // A key "__proto__" is the file's own field, never the object's prototype.
        Object.defineProperty(object, String(key ?? ''), {
          value: value(pair.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      result = object;
    } else result = node;
    if ((node as Node).anchor) built.set(node as Node, result);
    return result;
  };
  return value(doc.contents);
}

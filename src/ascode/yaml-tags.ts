import { isPair, isScalar, isSeq, type LineCounter, type Node, type parseDocument, visit } from 'yaml';
import type { Problem } from './source.js';

type YamlDoc = ReturnType<typeof parseDocument>;

const FLOAT = 'tag:yaml.org,2002:float';

/**
 * A value (or a key) under a tag the YAML reader does not resolve, refused at its line, saying what the tag
 * did (fixnum2). The yaml package leaves such a value as text with a warning svc does not show:
 * `token_lifetime_seconds: !!float 3600` (its !!float takes only a float's form, 3600.0) was
 * refused as `must be a whole number, not text`, which names neither the tag nor the fix, and
 * `description: !note hello` was read as "hello" without a word about a tag svc does not know.
 */
export function unresolvedTags(doc: YamlDoc, text: string, counter: LineCounter): Problem[] {
  const failed = doc.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (failed.length === 0) return [];
  const problems: Problem[] = [];
  // The warning of a node's tag: the tag written just before the node.
  const tagOf = (node: Node): [tag: string, at: number] | undefined => {
    const range = node.range;
    if (!node.tag || !range) return undefined;
    const warning = failed.find((w) => w.pos[1] <= range[0] && text.slice(w.pos[1], range[0]).trim() === '');
    return warning ? [text.slice(warning.pos[0], warning.pos[1]), warning.pos[0]] : undefined;
  };
  visit(doc, {
    // A key's tag too (`!note name: ci-role` was read as `name`, silently: closing note of session 28).
    Scalar(at, node, path) {
      const tagged = tagOf(node);
      if (!tagged || !node.range) return;
      const [tag, pos] = tagged;
      const raw = text.slice(node.range[0], node.range[1]).trim();
      const what = at === 'key' ? `the key "${String(node.value)}"` : valueName(path);
      problems.push({
        line: counter.linePos(pos).line,
        message:
          node.tag === FLOAT && /^[-+]?\d+$/.test(raw)
            ? `${what} is ${raw} tagged ${tag}, which YAML takes only on a number written with a fraction (it read ${raw} as text, not a number); remove the tag: ${raw}`
            : `${what} has the tag ${tag}, which svc does not read (the ${at === 'key' ? 'key' : 'value'} would be taken as text); remove the tag`,
      });
    },
    // A list or map under a tag it does not resolve was read as the plain one, silently (review28a L3).
    Collection(at, node, path) {
      const tagged = tagOf(node);
      if (!tagged) return;
      const [tag, pos] = tagged;
      const kind = isSeq(node) ? 'list' : 'map';
      problems.push({
        line: counter.linePos(pos).line,
        message: `${at === 'key' ? 'a key' : valueName(path)} has the tag ${tag}, which svc does not read (the ${kind} would be taken as a plain ${kind}); remove the tag`,
      });
    },
  });
  return problems;
}

/** `"token_lifetime_seconds"`, `an item of "permissions"`: the value a node is. */
function valueName(path: readonly unknown[]): string {
  const parent = path[path.length - 1];
  const keyOf = (pair: unknown) => (isPair(pair) && isScalar(pair.key) ? String(pair.key.value) : undefined);
  if (isPair(parent)) return `"${keyOf(parent) ?? 'a field'}"`;
  if (isSeq(parent)) {
    const list = keyOf(path[path.length - 2]);
    return list === undefined ? 'an item of a list' : `an item of "${list}"`;
  }
  return 'the file';
}

import { isPair, isScalar, isSeq, type LineCounter, type parseDocument, visit } from 'yaml';
import type { Problem } from './source.js';

type YamlDoc = ReturnType<typeof parseDocument>;

const FLOAT = 'tag:yaml.org,2002:float';

/**
 * A value under a tag the YAML reader does not resolve, refused at its line, saying what the tag
 * did (fixnum2). The yaml package leaves such a value as text with a warning svc does not show:
 * `token_lifetime_seconds: !!float 3600` (its !!float takes only a float's form, 3600.0) was
 * refused as `must be a whole number, not text`, which names neither the tag nor the fix, and
 * `description: !note hello` was read as "hello" without a word about a tag svc does not know.
 */
export function unresolvedTags(doc: YamlDoc, text: string, counter: LineCounter): Problem[] {
  const failed = doc.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (failed.length === 0) return [];
  const problems: Problem[] = [];
  visit(doc, {
    Scalar(at, node, path) {
      const range = node.range;
      if (at === 'key' || !node.tag || !range) return;
      // The warning of this value's tag: the tag written just before the value.
      const warning = failed.find(
        (w) => w.pos[1] <= range[0] && text.slice(w.pos[1], range[0]).trim() === '',
      );
      if (!warning) return;
      const tag = text.slice(warning.pos[0], warning.pos[1]);
      const raw = text.slice(range[0], range[1]).trim();
      const what = valueName(path);
      problems.push({
        line: counter.linePos(warning.pos[0]).line,
        message:
          node.tag === FLOAT && /^[-+]?\d+$/.test(raw)
            ? `${what} is ${raw} tagged ${tag}, which YAML takes only on a number written with a fraction (it read ${raw} as text, not a number); remove the tag: ${raw}`
            : `${what} has the tag ${tag}, which svc does not read (the value would be taken as text); remove the tag`,
      });
    },
  });
  return problems;
}

/** `"token_lifetime_seconds"`, `an item of "permissions"`: the value a scalar is. */
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

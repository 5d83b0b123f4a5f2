// Reading an access file, JSON or YAML, into values with their lines. Over 300 lines on purpose:
// both readers apply the same rules (a key given twice, an empty file, positions for FILE:LINE)
// with the same words, and those rules are easier to keep alike side by side than across files.
import { createHash } from 'node:crypto';
import {
  isAlias,
  isDocument,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  Scalar,
  visit,
} from 'yaml';
import { doubleOf, scanJson } from '../api/json-text.js';
import { textProblem } from '../system/input.js';
import { type Anchors, documentValue, readAliases } from './yaml-aliases.js';
import { unresolvedTags } from './yaml-tags.js';

/** Where a value sits in the file: keys of maps and indices of lists. */
export type Path = ReadonlyArray<string | number>;

/** A problem of the file, where it is: printed as `FILE:LINE: message`. */
export interface Problem {
  line: number | undefined;
  message: string;
  /** Not the file's fault but the caller's access (exit 4 when every problem is one). */
  forbidden?: boolean;
}

/**
 * An access file as read: its value, and the line of anything in it (for `file:line` messages).
 * YAML goes through the `yaml` package (positions kept); JSON through JSON.parse, whose lines are
 * found only when a problem needs one (scanJson, src/api/json-text.ts) — a 100,000-grant JSON file parses in a tenth of the time
 * and memory YAML takes, which matters for large estates (bench/RESULTS.md).
 */
export interface Source {
  /** How messages name it: the path given, or `stdin`. */
  label: string;
  format: 'yaml' | 'json';
  sha256: string;
  value: unknown;
  /** 1-based line of the value at `path` (of its key, for a member of a map). */
  line(path: Path): number | undefined;
  /** A number at `path` as the file writes it, when a double does not hold it (99999999999999999999). */
  written(path: Path): string | undefined;
  /** Lets go of the parse tree once nothing more will be located. */
  release(): void;
}

export type Parsed = { ok: true; source: Source } | { ok: false; problems: Problem[] };

export function parseSource(label: string, bytes: Buffer): Parsed {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // Bytes that are not UTF-8 would be read as U+FFFD, and that is what would be applied.
  // UTF-16 (PowerShell 5's `svc export > access.yaml`) is named as such, with the fix.
  const bad = textProblem(bytes);
  if (bad !== undefined) {
    let line = 1;
    for (let i = 0; i < bad.offset; i++) if (bytes[i] === 0x0a) line++;
    return { ok: false, problems: [{ line, message: bad.words }] };
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const json = label.toLowerCase().endsWith('.json') || (label === 'stdin' && /^\s*\{/.test(text));
  const parsed = json ? parseJson(label, sha256, text) : parseYaml(label, sha256, text);
  if (parsed.ok && (parsed.source.value === null || parsed.source.value === undefined)) {
    return { ok: false, problems: [{ line: undefined, message: EMPTY }] };
  }
  return parsed;
}

const EMPTY = 'the file is empty; it needs "version: 1" and "blocks:" (svc export writes one)';

/** How a duplicate key names the map it is in: `this grant`, `the file`, `"manage"`. */
const LIST_ITEMS: Record<string, string> = {
  blocks: 'block',
  roles: 'role',
  grants: 'grant',
  webhooks: 'webhook',
  oauth_clients: 'OAuth client',
};

function mapName(parentKey: string | undefined, inList: boolean): string {
  if (parentKey === undefined) return 'the file';
  if (inList) return `this ${LIST_ITEMS[parentKey] ?? `item of "${parentKey}"`}`;
  return `"${parentKey}"`;
}

const givenTwice = (key: string, where: string) => `"${key}" is given twice in ${where}; keep one`;

function parseJson(label: string, sha256: string, text: string): Parsed {
  if (text.trim() === '') return { ok: false, problems: [{ line: undefined, message: EMPTY }] };
  const first = /\S/.exec(text);
  if (first && first[0] !== '{') {
    // An access file is a JSON object; anything else is most likely YAML given a .json name.
    return {
      ok: false,
      problems: [
        {
          line: lineAt(text, first.index),
          message: 'not valid JSON: a JSON access file starts with "{"; if this is YAML, name the file .yaml',
        },
      ],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8 names the position of some errors only; YAML's parser (JSON is YAML) finds the line of all.
    const message = (error as Error).message.split('\n')[0]!.replace(/ in JSON at .*$/, '');
    const at = /position (\d+)/.exec((error as Error).message);
    const line = at ? lineAt(text, Number(at[1])) : yamlErrorLine(text);
    return { ok: false, problems: [{ line, message: `not valid JSON: ${message}` }] };
  }
  // JSON.parse keeps the last of two equal keys without a word: a reviewer reads the first.
  const duplicates: Problem[] = [];
  scanJson(text, {
    depth: -1,
    onDuplicate: (key, path, line) => {
      const parent = path[path.length - 1];
      const where = mapName(
        path.length === 0 ? undefined : String(typeof parent === 'number' ? path[path.length - 2] : parent),
        typeof parent === 'number',
      );
      duplicates.push({ line, message: givenTwice(key, where) });
    },
  });
  if (duplicates.length > 0) return { ok: false, problems: duplicates };
  let source: string | undefined = text;
  // Entries (blocks.N.grants.M) are located for every change; their fields only for problems.
  let entries: Map<string, number> | undefined;
  let everything: Map<string, number> | undefined;
  let numbers: Map<string, string> | undefined;
  return {
    ok: true,
    source: {
      label,
      format: 'json',
      sha256,
      value,
      line(path) {
        if (source === undefined) return undefined;
        if (path.length <= ENTRY_DEPTH) {
          entries ??= scanJson(source, { depth: ENTRY_DEPTH });
          return entries.get(path.join('\u0000'));
        }
        everything ??= scanJson(source, { depth: Number.POSITIVE_INFINITY });
        return everything.get(path.join('\u0000'));
      },
      written(path) {
        if (source === undefined) return undefined;
        if (numbers === undefined) {
          const found = new Map<string, string>();
          scanJson(source, {
            depth: -1,
            onNumber: (raw, at) => {
              if (doubleOf(raw) !== undefined) found.set(at.join('\u0000'), raw);
            },
          });
          numbers = found;
        }
        return numbers.get(path.join('\u0000'));
      },
      release() {
        source = undefined;
        entries = undefined;
        everything = undefined;
        numbers = undefined;
      },
    },
  };
}

function yamlErrorLine(text: string): number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  return doc.errors[0]?.linePos?.[0]?.line;
}

/** blocks.N.KIND.M: how deep an entry of the file sits. */
const ENTRY_DEPTH = 4;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function parseYaml(label: string, sha256: string, text: string): Parsed {
  const counter = new LineCounter();
  let doc: ReturnType<typeof parseDocument> | undefined = parseDocument(text, {
    lineCounter: counter,
    prettyErrors: true,
    uniqueKeys: true,
  });
  const merges = mergeKeys(doc, counter);
  if (merges.length > 0) return { ok: false, problems: merges };
  if (doc.errors.length > 0) {
    const parsed = doc;
    return {
      ok: false,
      problems: doc.errors.map((error) => ({
        line: error.linePos?.[0]?.line,
        message:
          error.code === 'DUPLICATE_KEY'
            ? duplicateYamlKey(parsed, error.pos[0])
            : error.code === 'MULTIPLE_DOCS'
              ? 'the file holds more than one YAML document (a "---" line here); put everything in one'
              : `not valid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    };
  }
  const aliases = readAliases(doc, counter);
  const before = [...yamlVersion(doc, text), ...aliases.problems, ...unresolvedTags(doc, text, counter)];
  if (before.length > 0) return { ok: false, problems: before };
  writtenKeys(doc, text, aliases.anchors);
  let value: unknown;
  try {
    // Aliases are bounded by what they expand to (readAliases), not by how often they are used.
    value = documentValue(doc, aliases.anchors);
  } catch (error) {
    return {
      ok: false,
      problems: [{ line: undefined, message: `not valid YAML: ${(error as Error).message}` }],
    };
  }
  return {
    ok: true,
    source: {
      label,
      format: 'yaml',
      sha256,
      value,
      line(path) {
        if (!doc) return undefined;
        const last = path[path.length - 1];
        if (typeof last === 'string') {
          const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
          if (isMap(parent)) {
            const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === last);
            const at = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0];
            if (at !== undefined) return counter.linePos(at).line;
          }
        }
        const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
        const at = (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
        return at === undefined ? undefined : counter.linePos(at).line;
      },
      written(path) {
        const node = doc?.getIn(path, true);
        if (!isScalar(node) || typeof node.value !== 'number' || !node.range) return undefined;
        const raw = text.slice(node.range[0], node.range[1]).trim();
        // A numeral, even one YAML 1.2 begins with a dot (.36e4, not JSON's: fixnum2); not .inf or .nan.
        return /^[-+]?\.?[0-9]/.test(raw) && doubleOf(raw.replace(/^\+/, '')) !== undefined ? raw : undefined;
      },
      release() {
        doc = undefined;
      },
    },
  };
}

type YamlDoc = ReturnType<typeof parseDocument>;

/** The key of the map a YAML node sits in, and whether that map is an item of a list. */
function container(path: readonly unknown[]): { key: string | undefined; inList: boolean } {
  const parent = path[path.length - 1];
  if (isDocument(parent)) return { key: undefined, inList: false };
  const inList = isSeq(parent);
  const pair = path[path.length - (inList ? 2 : 1)];
  const key = isPair(pair) && isScalar(pair.key) ? String(pair.key.value) : undefined;
  return { key: key ?? 'item', inList };
}

/** `"role" is given twice in this grant; keep one`, for the duplicate key at `offset`. */
function duplicateYamlKey(doc: YamlDoc, offset: number): string {
  let message = 'a key is given twice in a map; keep one';
  visit(doc, {
    Map(_, map, path) {
      const pair = map.items.find((p) => (p.key as { range?: number[] } | null)?.range?.[0] === offset);
      if (!pair) return undefined;
      const { key, inList } = container(path);
      message = givenTwice(String(isScalar(pair.key) ? pair.key.value : pair.key), mapName(key, inList));
      return visit.BREAK;
    },
  });
  return message;
}

/**
 * YAML merge keys (`<<: *anchor`) are not part of YAML 1.2, which svc reads: without a word, one
 * would be an unknown field and the fields it should bring would be missing.
 */
function mergeKeys(doc: YamlDoc, counter: LineCounter): Problem[] {
  const problems: Problem[] = [];
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value !== '<<' || pair.key.type !== 'PLAIN') return;
      const at = pair.key.range?.[0];
      problems.push({
        line: at === undefined ? undefined : counter.linePos(at).line,
        message:
          'merge keys (<<) are not supported; repeat the fields (several users alike: one grant with users: [...])',
      });
    },
  });
  return problems;
}

/**
 * A %YAML directive other than 1.2: the yaml package would read the file as YAML 1.1 (010 is 8,
 * 1:00:00 is 3600, yes is true), which svc says it does not do.
 */
function yamlVersion(doc: YamlDoc, text: string): Problem[] {
  const { yaml } = doc.directives ?? {};
  if (!yaml?.explicit || yaml.version === '1.2') return [];
  const at = text.indexOf('%YAML');
  return [
    {
      line: at < 0 ? undefined : lineAt(text, at),
      message: `"%YAML ${yaml.version}" is not read: svc reads YAML 1.2 only; remove the line (and check values such as 010, 1:00:00, yes)`,
    },
  ];
}

/**
 * A key that is not text as written — a list or map (`? [a, b]`), null (`null:`, `~:`) — becomes
 * the text it is written as, so it is named as written at its line (`"[a, b]" is not a field of a
 * role`) instead of `""` without a line, and the yaml package has no collection key to stringify
 * with a process warning on stderr (which would break --json's stderr).
 */
function writtenKeys(doc: YamlDoc, text: string, anchors: Anchors): void {
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key as Node | null;
      const target = isAlias(key) ? anchors.get(key) : key;
      if (isScalar(target) && target.value !== null) return;
      const range = (key as { range?: [number, number, number] } | null)?.range;
      const written = range ? text.slice(range[0], range[1]).replace(/\s+/g, ' ').trim() : '';
      const named = new Scalar(written);
      if (range) named.range = range;
      pair.key = named;
    },
  });
}

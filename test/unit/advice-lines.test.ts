/**
 * One rule for the command lines svc prints as advice (attack25a): a line that names a value of
 * the run (`svc webhooks replay ${webhook} …`) or a tenant's object by placeholder (`svc oauth
 * rotate-secret ID …`) is built with the run's command lines (svcCommand / commandLine /
 * Platform.svc / a LineHint), which repeat the -p, --tenant and --base-url it was given. Typed as a
 * plain string it loses them: pasted in the same shell it acts on the active profile's default
 * tenant (a grant made in another tenant, F1; "webhook not found", F2, F3; a revoke asked of
 * another tenant's grant, F4). This scan of src/ fails on a new such string; the ones left are
 * listed with why each may stay.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the pieces are source text, `${…}` as written there
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const GROUPS =
  'roles|webhooks|users|records|oauth|tenants|audit|api|me|export|plan|apply|config|login|logout|auth|profiles|sandbox';
/** `svc GROUP …${`: a command line with a value of the run typed into it. */
const WITH_VALUE = new RegExp(`(?<![\\w$.-])svc (?:${GROUPS})\\b[^\`'"]*\\$\\{`);
/** `svc GROUP VERB … PLACEHOLDER`: a line about one of a tenant's objects. */
const WITH_PLACEHOLDER =
  /(?<![\w$.-])svc (?:roles|webhooks|users|records|oauth|tenants|audit)(?: [a-z-]+)+ [A-Z][A-Z_]+\b/;

/**
 * `rm ${path}`, `cat`, `mv`, `ls -l`: a file to act on typed into a shell line bare. A path with a
 * space or a quote (a state directory under `My Documents`) is then two words, or another file:
 * it is written with pathWord / shellWord / shellQuote (the note of an earlier input's unfinished
 * journal, session 26, is one such line). The first file named is what is checked.
 */
const SHELL_PATH = /(?<![\w$.-])(?:rm(?: -r)?|cat|mv|ls -l) \$\{(?!pathWord\(|shellWord\(|shellQuote\()/;

const PROSE = 'prose naming the command, not a line to paste';
const HELP = 'help text: the syntax, for no run in particular';
/** Each string that may stay plain, by file and a piece of its line, with why. */
const ALLOWED: ReadonlyArray<[file: string, piece: string, why: string]> = [
  ['src/auth/end-session.ts', 'svc profiles rm ${kept}\\`', 'names the profile itself; acts on no tenant'],
  ['src/ascode/apply.ts', 'run svc apply with --prune', PROSE],
  ['src/ascode/apply.ts', 'svc plan says why; keep ${count', PROSE],
  ['src/ascode/drift.ts', 'is not a plan saved by svc plan --out', PROSE],
  ['src/ascode/lockout.ts', '`svc apply refuses ${refused[0]}`', PROSE],
  ['src/ascode/lockout.ts', '`svc apply refuses ${refused.length', PROSE],
  ['src/ascode/render.ts', '! svc apply refuses this', PROSE],
  ['src/ascode/schema.ts', 'What svc apply --prune may remove', PROSE],
  ['src/commands/plan/index.ts', 'more than svc apply reads', PROSE],
  ['src/commands/plan/index.ts', '`svc apply refuses ${summary.refused}', PROSE],
  ['src/commands/export/index.ts', '`svc export of ${names}', PROSE],
  ['src/commands/sandbox/start.ts', 'svc sandbox listening on', PROSE],
  [
    'src/commands/sandbox/start.ts',
    'svc profiles use ${shellWord(profile)}',
    'names the profile it wrote, with profileOption: the sandbox profile is the target',
  ],
  [
    'src/commands/profiles/rm.ts',
    'retry: `svc profiles rm',
    'names the profile it removes; acts on no tenant',
  ],
  [
    'src/commands/profiles/rm.ts',
    'noRevoke: `svc profiles rm',
    'names the profile it removes; acts on no tenant',
  ],
  ['src/commands/auth/logout.ts', 'svc tenants api-keys revoke TENANT KEY_ID', HELP],
  ['src/commands/auth/logout.ts', 'svc tenants api-keys ls TENANT', HELP],
  ['src/commands/webhooks/get.ts', 'svc webhooks update WEBHOOK --enable', HELP],
  ['src/commands/webhooks/deliveries/index.ts', 'svc webhooks deliveries WEBHOOK', HELP],
  ['src/commands/webhooks/deliveries/index.ts', 'svc webhooks deliveries ls WEBHOOK', HELP],
  ['src/commands/webhooks/dlq/index.ts', 'svc webhooks dlq WEBHOOK', HELP],
  ['src/commands/webhooks/dlq/index.ts', 'svc webhooks dlq ls WEBHOOK', HELP],
  ['src/commands/webhooks/dlq/ls.ts', 'svc webhooks dlq WEBHOOK', HELP],
  // Refused while the command line is parsed, before the run's settings are read: the syntax,
  // with placeholders. Left (attack25a F8 is about what they name, not where they act).
  [
    'src/commands/webhooks/replay.ts',
    'svc webhooks replay WEBHOOK DELIVERY...',
    'usage syntax, placeholders only',
  ],
  [
    'src/commands/webhooks/dlq/discard.ts',
    'svc webhooks dlq discard WEBHOOK ENTRY...',
    'usage syntax, placeholders only',
  ],
  // `svc api`'s refusals of its own command line name the command as typed; their examples are
  // the run's lines (parseApi's CommandLine).
  ['src/commands/api/index.ts', 'svc api needs a path', PROSE],
  ['src/commands/api/index.ts', 'svc api ${first} needs a path', PROSE],
  ['src/commands/api/index.ts', 'svc api takes the method as its first word', PROSE],
  ['src/commands/api/index.ts', 'svc api takes a request body from --input', PROSE],
];

/** The src/ files that print what a user runs; the sandbox server and the tour (on the sandbox's own profile) are not svc's advice. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === 'src/sandbox' || path === 'src/tour' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function plainLines(): Array<{ file: string; line: number; text: string }> {
  const found: Array<{ file: string; line: number; text: string }> = [];
  for (const file of sources('src')) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, at) => {
        const code = text.trim();
        if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
        if (WITH_VALUE.test(text) || WITH_PLACEHOLDER.test(text) || SHELL_PATH.test(text))
          found.push({ file, line: at + 1, text: code });
      });
  }
  return found;
}

describe('advice command lines are the run’s (attack25a)', () => {
  const found = plainLines();

  it('no plain-string `svc …` line with a value or placeholder outside the list', () => {
    const stray = found.filter(
      ({ file, text }) =>
        !ALLOWED.some(([allowedFile, piece]) => allowedFile === file && text.includes(piece)),
    );
    expect(stray.map(({ file, line, text }) => `${file}:${line}: ${text}`)).toEqual([]);
  });

  it('every entry of the list still names a line (none outlives its string)', () => {
    const unused = ALLOWED.filter(
      ([file, piece]) => !found.some((f) => f.file === file && f.text.includes(piece)),
    ).map(([file, piece]) => `${file}: ${piece}`);
    expect(unused).toEqual([]);
  });

  it('the scan finds a plain line (it is not blind)', () => {
    const line = 'ctx.out.info(`\\`svc webhooks replay ${webhook} dlv_1\\``)';
    expect(WITH_VALUE.test(line)).toBe(true);
    expect(WITH_PLACEHOLDER.test("'svc oauth rotate-secret ID --secret-file PATH'")).toBe(true);
    expect(WITH_VALUE.test('svc(`webhooks replay ${w}`)')).toBe(false);
    expect(SHELL_PATH.test('or remove it (\\`rm ${other.path}\\`)')).toBe(true);
    expect(SHELL_PATH.test('or remove it (\\`rm ${pathWord(other.path)}\\`)')).toBe(false);
  });
});

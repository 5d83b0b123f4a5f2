import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { bulkRunner } from './bulk.js';
import { useLossyProxy } from './lossy-proxy.js';

/** One single mutating verb to cut: a fresh argv (its object made by `setup`), and the platform's state it changes. */
export interface CutCase {
  name: string;
  /** Makes what the verb acts on (a fresh one for each run); returns the argv. */
  setup: () => Promise<string[]>;
  /** The platform's state the verb changes, read back outside svc (compared before and after). */
  state: (argv: string[]) => Promise<unknown>;
  /** A secret the platform makes (a key's, a client's, a webhook's): once answered, the user must get it. */
  secret?: RegExp;
  /** Where the verb was asked to write the secret (`--secret-file`): its content counts as said. */
  written?: (argv: string[]) => string;
  /**
   * A bulk run of one item: a Ctrl-C while its item is in flight lets it finish, and the run ends
   * as it would have (docs/RELIABILITY.md, "Ctrl-C cuts the run").
   */
  finishesInFlight?: true;
}

/** What the run wrote to its `--secret-file` (empty when nothing was written). */
const secretFileOf = (argv: string[]): string => {
  const path = argv[argv.indexOf('--secret-file') + 1]!;
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
};

/**
 * A verb that returns a secret once, swept both ways the one secret rule allows: `--secret-file`
 * (a file named `name`-N in `dir`, whose content counts as said) and `--show-secret`.
 */
export function secretCases(
  name: string,
  dir: string,
  argv: (n: number) => Promise<string[]> | string[],
  rest: Pick<CutCase, 'state' | 'secret'>,
): CutCase[] {
  let made = 0;
  return [
    {
      name: `${name} --secret-file`,
      setup: async () => [
        ...(await argv(++made)),
        '--secret-file',
        join(dir, `${name.replace(/\W+/g, '-')}-${made}`),
      ],
      ...rest,
      written: secretFileOf,
    },
    { name: `${name} --show-secret`, setup: async () => [...(await argv(++made)), '--show-secret'], ...rest },
  ];
}

export interface CutRun {
  k: number;
  /** The request the run was cut at (`METHOD path`). */
  at: string;
  changed: boolean;
  code: number;
  stdout: string;
  stderr: string;
  /** Requests sent before the cut one (their answers came back). */
  answered: string[];
  argv: string[];
}

/** The state as compared: a refused read is the test's mistake, not a state. */
function stateOf(state: unknown): string {
  const text = JSON.stringify(state);
  if (/"code":"invalid_request"/.test(text)) throw new Error(`the state read was refused: ${text}`);
  return text.replace(/"request_id":"[^"]*"/g, '');
}

const MUTATING = /^(POST|PATCH|PUT|DELETE) /;

/**
 * Ctrl-C at request k of a verb's run, for k = 1..n (n: the requests an uncut run makes): a proxy
 * before the sandbox aborts the run's signal when request k arrives, then passes it on (so the
 * platform applies it: the answer is lost, as a Ctrl-C after sending). Each run is judged by
 * `verdict`: an empty list is a good run.
 */
export function useCutSweep(sandbox: () => Sandbox) {
  const svc = bulkRunner(sandbox);
  const seen: string[] = [];
  let cutAt = 0;
  let cut: AbortController | undefined;
  // The cut request reaches the platform after the run ended: its state is read once it answered.
  let answered = 0;
  let applied: () => void = () => {};
  const proxy = useLossyProxy(sandbox, {
    lose: () => {
      if (++answered === cutAt) applied();
      return false;
    },
    before: async (method, path) => {
      seen.push(`${method} ${path.split('?')[0]}`);
      if (cut && seen.length === cutAt) {
        cut.abort();
        cut = undefined;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  });
  async function run(argv: string[], k: number) {
    seen.length = 0;
    answered = 0;
    cutAt = k;
    const done = new Promise<void>((resolve) => {
      applied = resolve;
    });
    const abort = k > 0 ? new AbortController() : undefined;
    cut = abort;
    const r = await svc.run(argv, {
      ...(abort ? { signal: abort.signal } : {}),
      env: { SVC_BASE_URL: proxy().url },
    });
    cut = undefined;
    if (k > 0 && seen.length >= k) await done;
    return { ...r, requests: [...seen] };
  }
  return {
    svc,
    /** The requests an uncut run makes (it must succeed). */
    async requests(c: CutCase): Promise<string[]> {
      const r = await run(await c.setup(), 0);
      if (r.code !== 0) throw new Error(`${c.name} uncut: exit ${r.code}: ${r.stderr}`);
      return r.requests;
    },
    async cutAt(c: CutCase, k: number): Promise<CutRun> {
      const argv = await c.setup();
      const before = stateOf(await c.state(argv));
      const r = await run(argv, k);
      const after = stateOf(await c.state(argv));
      return {
        k,
        at: r.requests[k - 1] ?? '(none)',
        changed: before !== after,
        code: r.code,
        stdout: r.stdout,
        stderr: r.stderr,
        answered: r.requests.slice(0, k - 1),
        argv,
      };
    },
  };
}

/** What is wrong with a cut run (empty: nothing). */
export function verdict(c: CutCase, r: CutRun): string[] {
  const wrong: string[] = [];
  const said = r.stdout + r.stderr;
  // A result row on stdout claims a change unless it is a failed row that says nothing was changed.
  const claims =
    /✓/.test(r.stderr) ||
    r.stdout.split('\n').some((line) => line.trim() !== '' && !/^failed\t.*nothing was changed/.test(line));
  const owned = /may have|was made|may still|check with|svc \S+ (get|ls)|already/i.test(said);
  if (r.changed && !claims && !owned) wrong.push('changed, but the output says only that it was interrupted');
  if (!r.changed && claims && !/may have|may not/i.test(said))
    wrong.push('unchanged, but the output says a change');
  if (r.code !== 0 && r.code !== 130) wrong.push(`exit ${r.code}`);
  if (!r.changed && r.code === 0) wrong.push('unchanged, exit 0');
  const sent = MUTATING.test(r.at) || r.answered.some((q) => MUTATING.test(q));
  if (!sent && r.code === 0 && !c.finishesInFlight)
    wrong.push('Ctrl-C before any change was sent, yet it went on (exit 0)');
  const madeSecret = r.answered.some((q) => MUTATING.test(q));
  const kept = said + (c.written?.(r.argv) ?? '');
  if (c.secret && r.changed && madeSecret && !c.secret.test(kept)) wrong.push('the secret made was lost');
  return wrong;
}

/** One test per case: every k is cut, each run's table row is printed, and no run may be wrong. */
export function describeCutSweep(
  title: string,
  sandbox: () => Sandbox,
  cases: (sweep: ReturnType<typeof useCutSweep>) => CutCase[],
) {
  const sweep = useCutSweep(sandbox);
  describe(`${title}: Ctrl-C at each request`, () => {
    it.each(cases(sweep))('$name', async (c) => {
      const n = (await sweep.requests(c)).length;
      const rows: string[] = [];
      const wrong: string[] = [];
      for (let k = 1; k <= n; k++) {
        const r = await sweep.cutAt(c, k);
        const bad = verdict(c, r);
        const last = r.stderr.trim().split('\n').at(-1)?.slice(0, 100);
        rows.push(
          `ROW\t${c.name}\tk=${k}/${n}\t${r.at}\tchanged=${r.changed}\texit=${r.code}\t${bad.join('; ') || 'ok'}\t${last}`,
        );
        if (bad.length) wrong.push(`k=${k} ${r.at}: ${bad.join('; ')}\n${r.stdout}${r.stderr}`);
      }
      console.log(rows.join('\n'));
      expect(wrong).toEqual([]);
    });
  });
}

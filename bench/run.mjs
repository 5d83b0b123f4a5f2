// `npm run bench`: runs every benchmark in one session and records the figures in
// bench/RESULTS.md. `npm run bench -- startup` runs only the named ones and prints them.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildDist } from '../scripts/build.mjs';
import ascode from './ascode.mjs';
import bigAnswer from './big-answer.mjs';
import delivery from './delivery.mjs';
import fairness from './fairness.mjs';
import grants from './grants.mjs';
import { ROOT } from './lib.mjs';
import oauthRefresh from './oauth-refresh.mjs';
import replay from './replay.mjs';
import startup from './startup.mjs';
import tenantsAll from './tenants-all.mjs';
import validate from './validate.mjs';

/** Every benchmark, in the order RESULTS.md lists them. Later issues add theirs. */
const BENCHES = {
  startup,
  'tenants-all': tenantsAll,
  'oauth-refresh': oauthRefresh,
  grants,
  validate,
  replay,
  delivery,
  fairness,
  ascode,
  'big-answer': bigAnswer,
};

const only = process.argv.slice(2);
const chosen = only.length ? only : Object.keys(BENCHES);
for (const name of chosen)
  if (!BENCHES[name]) throw new Error(`unknown benchmark ${name}; have ${Object.keys(BENCHES).join(', ')}`);

await buildDist({ quiet: true });
const started = new Date();
const sections = [];
for (const name of chosen) {
  process.stderr.write(`bench: ${name}…\n`);
  const section = await BENCHES[name]();
  sections.push(section);
  process.stderr.write(`${render(section)}\n`);
}

function render({ title, what, rows }) {
  const lines = [`## ${title}`, '', what, '', '| metric | result | target | |', '|---|---|---|---|'];
  for (const r of rows)
    lines.push(
      `| ${r.metric} | ${r.value} | ${r.target} | ${r.pass === undefined ? '' : r.pass ? 'pass' : '**FAIL**'} |`,
    );
  return `${lines.join('\n')}\n`;
}

if (only.length === 0) {
  const failures = sections.flatMap((s) =>
    s.rows.filter((r) => r.pass === false).map((r) => `${s.title}: ${r.metric}`),
  );
  const header = [
    '# Benchmark results',
    '',
    `Recorded by \`npm run bench\` on ${started.toISOString().replace(/\.\d+Z$/, 'Z')}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the start.`,
    'All figures of this file come from that one run (the mutation scores at the end come from `npm run mutation`). The machines are shared and noisy, so ratios are taken between commands measured in the same interleaved rounds.',
    '',
    failures.length ? `Targets missed: ${failures.join('; ')}.` : 'Every target was met in this run.',
    '',
  ];
  const file = join(ROOT, 'bench', 'RESULTS.md');
  // Mutation scores come from `npm run mutation` and the suite's wall time from vitest, not from a
  // benchmark: everything from the mutation section on is kept as it is.
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const mutation = previous.indexOf('\n## Mutation testing');
  const kept = mutation === -1 ? '' : `\n${previous.slice(mutation + 1).trimEnd()}\n`;
  writeFileSync(file, `${header.join('\n')}\n${sections.map(render).join('\n')}${kept}`);
  process.stderr.write('bench: wrote bench/RESULTS.md\n');
}

#!/usr/bin/env node
// Sums the V8 CPU profiles test/helpers/cpu-probe.ts wrote (SVC_CPU_PROFILE=<dir>) across files and
// ranks functions (name + file + line) by self time and by total time (the function and what it
// called, each sample counted once per function however deep the recursion).
// Usage: node scripts/cpu-profile-merge.mjs <dir> [top=40] [self|total|both] [filter: url or name part]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, topArg, mode = 'both', filter] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/cpu-profile-merge.mjs <dir> [top=40] [self|total|both] [filter]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const self = new Map();
const total = new Map();
let all = 0;
let files = 0;
const cwd = process.cwd();
const nameOf = ({ functionName, url, lineNumber }) => {
  const where = url.startsWith('file://') ? relative(cwd, new URL(url).pathname) : url;
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
};
for (const entry of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  files += 1;
  const profile = JSON.parse(readFileSync(join(dir, entry), 'utf8'));

  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const names = new Map(profile.nodes.map((n) => [n.id, nameOf(n.callFrame)]));
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next sample (the last one's is unknown: skipped).
    const ms = (timeDeltas[i + 1] ?? 0) / 1000;
    all += ms;
    const leaf = samples[i];
    self.set(names.get(leaf), (self.get(names.get(leaf)) ?? 0) + ms);
    const seen = new Set();
    for (let id = leaf; id !== undefined; id = parent.get(id)) {
      const name = names.get(id);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  }
}
const show = (title, map) => {
  console.log(`\n${title} (ms, % of ${all.toFixed(0)} ms sampled in ${files} profiles)`);
  const rows = [...map].filter(([name]) => !filter || name.includes(filter)).sort((a, b) => b[1] - a[1]);
  for (const [name, ms] of rows.slice(0, top))
    console.log(`${ms.toFixed(0).padStart(8)} ${((100 * ms) / all).toFixed(1).padStart(5)}%  ${name}`);
};
if (mode !== 'total') show('self time', self);
if (mode !== 'self') show('total time', total);

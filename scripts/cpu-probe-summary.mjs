#!/usr/bin/env node
// Ranks the lines test/helpers/cpu-probe.ts wrote (SVC_CPU_PROBE): totals, by folder, the costliest files.
// Usage: node scripts/cpu-probe-summary.mjs /tmp/cpu.jsonl [top=30]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 30);
const rows = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const cost = (r) => r.self + r.children;
const sum = (list, key) => list.reduce((n, r) => n + (key ? r[key] : cost(r)), 0);
const fmt = (n) => n.toFixed(1).padStart(7);
console.log(
  `files ${rows.length}  cpu ${sum(rows).toFixed(1)} s (self ${sum(rows, 'self').toFixed(1)}, children ${sum(rows, 'children').toFixed(1)})  sandboxes ${sum(rows, 'sandboxes')}  spawns ${sum(rows, 'spawns')}`,
);
const folders = new Map();
for (const r of rows) {
  const key = r.file.split('/').slice(0, 2).join('/');
  folders.set(key, [...(folders.get(key) ?? []), r]);
}
console.log('\nfolder                      cpu    self children files sandboxes spawns');
for (const [key, list] of [...folders].sort((a, b) => sum(b[1]) - sum(a[1])))
  console.log(
    `${key.padEnd(24)}${fmt(sum(list))} ${fmt(sum(list, 'self'))} ${fmt(sum(list, 'children'))} ${String(list.length).padStart(5)} ${String(sum(list, 'sandboxes')).padStart(9)} ${String(sum(list, 'spawns')).padStart(6)}`,
  );
console.log(
  `\n${top} costliest files                                    cpu    self children sandboxes spawns`,
);
for (const r of [...rows].sort((a, b) => cost(b) - cost(a)).slice(0, top))
  console.log(
    `${r.file.padEnd(50)}${fmt(cost(r))} ${fmt(r.self)} ${fmt(r.children)} ${String(r.sandboxes).padStart(9)} ${String(r.spawns).padStart(6)}`,
  );

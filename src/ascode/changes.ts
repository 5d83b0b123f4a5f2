import type { Kind } from './model.js';
import type { PlanChange } from './plan.js';

/** A change with nothing filled in yet (the diffs of ./diff.ts and ./diff-integrations.ts add the rest). */
export function base(
  kind: Kind,
  action: PlanChange['action'],
  name: string,
  id: string | null,
  line: number | null | undefined,
  before: string | null,
  verb: PlanChange['verb'] = action,
): PlanChange {
  return { kind, action, verb, name, id, line: line ?? null, prune: false, fields: [], before, needs: [] };
}

/** Two lists hold the same values, in any order (permissions, scopes, event kinds). */
export const sameSet = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  const left = new Set(a.map(String));
  const right = new Set(b.map(String));
  return left.size === right.size && [...left].every((v) => right.has(v));
};

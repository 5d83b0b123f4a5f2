import { isDeepStrictEqual } from 'node:util';

/**
 * RFC 7396 JSON Merge Patch: objects merge recursively, null removes a member, anything else
 * (arrays included) replaces.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

/**
 * The members of a merge patch that would change `target`: a member set to what it is already
 * (objects compared by value, whatever their key order) or a null for a member it lacks is no
 * change, so `{}` changes nothing. The sandbox applies a patch only when some member changes it
 * (no updated_at for a change of nothing); `svc records update` sends nothing then.
 */
export function mergePatchChanges(target: Record<string, unknown>, patch: Record<string, unknown>): string[] {
  return Object.entries(patch)
    .filter(([key, value]) =>
      value === null
        ? Object.hasOwn(target, key)
        : !Object.hasOwn(target, key) || !isDeepStrictEqual(mergePatch(target[key], value), target[key]),
    )
    .map(([key]) => key);
}

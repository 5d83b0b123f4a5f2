/**
 * The fields of a PATCH that would change a resource: a field set to what it is already is no
 * change, and lists (a webhook's event kinds) are compared as sets. The sandbox applies only
 * these (no audit entry, no updated_at for a change of nothing); svc sends nothing when there
 * are none (`webhooks update`).
 */
export function changedFields(current: object, change: object): string[] {
  const now = current as Record<string, unknown>;
  return Object.entries(change)
    .filter(([key, value]) => value !== undefined && differs(now[key], value))
    .map(([key]) => key);
}

/**
 * The fields a change names whose values differ between two records of one resource: what an
 * update's answer (`after`) shows changed since the record read before it (a server may keep a
 * value sent as one it already had).
 */
export function changedBetween(before: object, after: object, change: object): string[] {
  const now = after as Record<string, unknown>;
  return changedFields(before, Object.fromEntries(Object.keys(change).map((key) => [key, now[key]])));
}

/** Lists differ unless they hold the same items as often, in any order ([a, a] is not [a, b]). */
function differs(now: unknown, wanted: unknown): boolean {
  if (Array.isArray(now) && Array.isArray(wanted)) {
    if (now.length !== wanted.length) return true;
    const left = [...now];
    for (const item of wanted) {
      const at = left.indexOf(item);
      if (at < 0) return true;
      left.splice(at, 1);
    }
    return false;
  }
  return now !== wanted;
}

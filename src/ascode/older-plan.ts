import { isoSeconds, serverTime } from '../api/time.js';
import type { CheckedFile } from './engine.js';
import { readEntries } from './entries.js';
import type { PlanDocument } from './plan.js';

/**
 * A plan an older svc kept beside its journal (before session 21) has no `expires_in` per grant,
 * so a grant another run made meanwhile, counted from its own second, read as drift and made
 * every re-run of the file exit 6 (./held-expiry.ts judged it by `expires_at` alone). The file of a
 * resumed `svc apply -f` is the bytes that plan was made from (their sha256 is the journal's
 * identity), so what the older svc meant is read back from it: a grant's entry (at the change's
 * line, of its user and role) whose `expires_in`, counted from the plan's anchor, is exactly the
 * grant's `expires_at` gives the grant that span, as svc now plans it. Any other grant (an end
 * time, a permanent one, one the file does not show so) stays judged by its `expires_at`.
 */
export function withFileSpans(doc: PlanDocument, checked: CheckedFile): void {
  const grants = doc.tenants
    .flatMap((t) => t.changes)
    .filter((c) => c.grant && c.grant.expires_in === undefined);
  if (grants.length === 0) return;
  const spans = new Map<string, { ms: number; text: string }>();
  for (const block of readEntries(checked.source, checked.shape).file.blocks)
    for (const entry of block.grants)
      if (entry.expiry.kind === 'in') spans.set(`${entry.line} ${entry.user} ${entry.role}`, entry.expiry);
  const anchorMs = serverTime(doc.anchor);
  for (const change of grants) {
    const grant = change.grant!;
    const span = spans.get(`${change.line} ${grant.user} ${grant.role}`);
    if (
      span !== undefined &&
      grant.expires_at !== null &&
      isoSeconds(anchorMs + span.ms) === grant.expires_at
    )
      grant.expires_in = span.text;
  }
}

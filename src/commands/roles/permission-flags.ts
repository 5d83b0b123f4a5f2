import { PERMISSION_RE } from '../../api/roles.js';
import type { CommandLine } from '../../config/settings.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
import { retyped, UnknownPermissionError } from '../../platform/errors.js';

/** A permission the platform's catalog lacks: its refusal, pointing at `svc roles permissions`. */
export async function withCatalogHint<T>(svc: CommandLine, request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (!(error instanceof UnknownPermissionError)) throw error;
    throw retyped(error, UnknownPermissionError, `see \`${svc('roles permissions')}\` for the catalog`);
  }
}

/**
 * Permission strings from a repeatable flag, checked locally before any request: dotted
 * lowercase identifiers (the server then checks them against its catalog). Duplicates are dropped.
 */
export function permissionFlag(flag: string, raw: unknown): string[] {
  const values = Array.isArray(raw) ? (raw as string[]) : [];
  const out: string[] = [];
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
    if (!PERMISSION_RE.test(value)) {
      throw new UsageError(
        `${flag} ${quoted(value)} is not a permission: use a dotted lowercase identifier such as exception.read or rule.write.fx`,
      );
    }
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

// The `svc api` commands svc prints for a person to run by hand, when svc itself cannot (killed,
// network down): each value one shell word, each path the platform client's (webhookPaths), with
// the global options that keep them on the run's profile, base URL and tenant (targetOptions).
import { svcCommand, type TargetSettings } from '../../config/settings.js';
import { webhookPaths } from '../../platform/webhooks.js';
import { shellWord } from '../../system/shell-words.js';

/** The settings of the run the commands must act as (`ctx.settings()`). */
type Target = TargetSettings;

/**
 * The commands that put the webhook back by hand. Pasted into a shell: each value is one shell
 * word (single-quoted when it needs quoting), so a URL holding `$(…)`, `$VAR` or backquotes runs
 * nothing and is set back exactly as it was; and they act on the tenant the run did, not on the
 * profile's default one. A URL holding a secret is read from the file it was kept in instead.
 */
export function restoreCommands(
  target: Target,
  webhook: string,
  url: string,
  secret = true,
  /** A file holding the URL (kept-url.ts: one with a secret is never printed): read with `-F url=@FILE`. */
  urlFile?: string,
): string {
  const field = urlFile === undefined ? `-f url=${shellWord(url)}` : `-F url=@${shellWord(urlFile)}`;
  // Their answers are the webhook, URL whole: a kept URL's are not shown either.
  const quiet = urlFile === undefined ? '' : ' >/dev/null';
  const patch = `${svcCommand(target, `api PATCH ${shellWord(webhookPaths.one(webhook))} ${field}`)}${quiet}`;
  return secret ? `${patch} && ${restoreSecretCommand(target, webhook)}${quiet}` : patch;
}

/** The command that undoes the webhook's last rotation (the platform's restore-secret). */
export function restoreSecretCommand(target: Target, webhook: string): string {
  return svcCommand(target, `api POST ${shellWord(webhookPaths.restoreSecret(webhook))}`);
}

/**
 * What to do after a restore-secret whose outcome is unknown (its answer lost or unreadable): look
 * before running it again, since restore-secret undoes rotations as a stack, so a second one after
 * a first that was made would undo an earlier rotation too. W's secret_rotated_at says which: the
 * one before the session's rotation once it is undone, the session's while it is not.
 */
export function restoreUnknownHint(
  target: Target,
  webhook: string,
  rotatedAt: { before: string | null; session: string | null },
): string {
  return (
    `see \`${svcCommand(target, `webhooks get ${shellWord(webhook)}`)}\`: its secret_rotated_at is ${rotatedAt.before ?? 'null'} ` +
    `once the rotation is undone; only while it is still ${rotatedAt.session ?? 'null'}, undo it with: ` +
    `${restoreSecretCommand(target, webhook)} (once it is undone, that would undo an earlier rotation too)`
  );
}

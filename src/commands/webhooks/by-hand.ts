// The `svc api` commands svc prints for a person to run by hand, when svc itself cannot (killed,
// network down): each value one shell word, each path the platform client's (webhookPaths).
import { webhookPaths } from '../../platform/webhooks.js';
import { shellWord } from '../../system/shell-words.js';

/**
 * The commands that put the webhook back by hand. Pasted into a shell: each value is one shell
 * word (single-quoted when it needs quoting), so a URL holding `$(…)`, `$VAR` or backquotes runs
 * nothing and is set back exactly as it was.
 */
export function restoreCommands(webhook: string, url: string, secret = true): string {
  const patch = `svc api PATCH ${shellWord(webhookPaths.one(webhook))} -f url=${shellWord(url)}`;
  return secret ? `${patch} && ${restoreSecretCommand(webhook)}` : patch;
}

/** The command that undoes the webhook's last rotation (the platform's restore-secret). */
export function restoreSecretCommand(webhook: string): string {
  return `svc api POST ${shellWord(webhookPaths.restoreSecret(webhook))}`;
}

import { isStopped } from '../../api/channel-holds.js';
import { type DeliveryFailureCause, SANDBOX_INJECTED } from '../../api/constants.js';
import type { Webhook } from '../../api/schemas/webhooks.js';
import type { CommandLine } from '../../config/settings.js';
import { lookupMayFail } from '../../errors.js';
import { enableHint } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';

/** The reference's remedy for each delivery failure cause, shown with failed test deliveries. */
export const REMEDIES: Record<DeliveryFailureCause, string> = {
  connection_timeout:
    'target slow or unreachable: raise its timeout, check the firewall and that it is running',
  tls_handshake_failed: 'invalid or expired target certificate: renew it and check the chain',
  '4xx_client_error': 'the target rejected the payload: inspect the payload format and authentication',
  '5xx_server_error': 'the target had an internal error: check its logs',
  payload_too_large: "the payload exceeded the target's body limit: raise the limit or split events",
  invalid_signature: 'the target rejected the HMAC signature: check the signing secret it uses',
  redirect_not_followed:
    'the target answered with a redirect, which deliveries never follow: use the final URL',
  webhook_stopped:
    'the platform stopped the webhook, so the attempt was not made (svc webhooks get says why); once someone who holds the read permissions of its kinds without an end date enables it, and so owns it, replay the delivery: it is in the dead-letter queue',
};

/**
 * The remedy of a delivery's failure, with the commands for its webhook where it has some, in the
 * run's command lines (`svc`: Platform.svc; bare, they acted in another tenant: attack25a F3).
 */
export function remedyFor(
  cause: DeliveryFailureCause,
  webhook: string,
  svc: CommandLine,
  error?: string | null,
): string {
  const w = shellWord(webhook);
  // The sandbox made it fail (`svc sandbox target`): the target's logs hold nothing (attack25a F10).
  if (cause !== 'webhook_stopped' && error?.endsWith(`, ${SANDBOX_INJECTED}`)) {
    return `the sandbox injected this failure: recover the target with ${svc(`sandbox target ${w} --recover`)}; a delivery in the dead-letter queue is then replayed with ${svc(`webhooks replay ${w} --dlq`)}`;
  }
  if (cause !== 'webhook_stopped') return REMEDIES[cause] ?? 'check the target';
  return `the platform stopped the webhook, so the attempt was not made (${svc(`webhooks get ${w}`)} says why); once someone who holds the read permissions of its kinds without an end date enables it (${svc(`webhooks update ${w} --enable`)}), and so owns it, replay the delivery: it is in the dead-letter queue (${svc(`webhooks replay ${w} --dlq`)})`;
}

/**
 * The remedy of a delivery that failed `cause`, read against its webhook as it is now: for one the
 * platform stopped (webhook_stopped), why, in the platform's words (its disabled_reason, which
 * names who may enable it and so own it, as `svc webhooks get` shows), and the commands that send
 * the delivery after all (it is in the dead-letter queue); for a webhook enabled again since,
 * only the replay. remedyFor's words when the webhook cannot be read, and for any other cause.
 * One command's: a run of many failed rows makes one Remedies, which reads each webhook once.
 */
export class Remedies {
  /** Each webhook as read, by id, for the run (undefined: it could not be; one cut short is asked again). */
  readonly #webhooks = new Map<string, Promise<Webhook | undefined>>();

  constructor(private readonly platform: Platform) {}

  /** `error`: the delivery's last_error (a sandbox-injected failure's remedy is the sandbox's). */
  async now(webhook: string, cause: DeliveryFailureCause, error?: string | null): Promise<string> {
    const svc = this.platform.svc;
    if (cause !== 'webhook_stopped') return remedyFor(cause, webhook, svc, error);
    const found = await this.#read(webhook);
    if (!found) return remedyFor(cause, webhook, svc);
    const w = shellWord(webhook);
    const replay = `replay the delivery from the dead-letter queue: ${svc(`webhooks replay ${w} --dlq`)}`;
    if (found.status !== 'disabled') {
      return `the platform had stopped webhook ${webhook}, so the attempt was not made; it is enabled again: ${replay}`;
    }
    const why = isStopped(found)
      ? `the platform stopped webhook ${webhook}, so the attempt was not made: ${found.disabled_reason}`
      : `webhook ${webhook} was stopped, so the attempt was not made, and is now disabled on request`;
    return `${why}; ${enableHint(webhook)(svc)}, then ${replay}`;
  }

  #read(webhook: string): Promise<Webhook | undefined> {
    let read = this.#webhooks.get(webhook);
    if (read === undefined) {
      read = this.platform.webhooks.get(webhook).catch((error: unknown) => {
        if (lookupMayFail(error)) return undefined;
        this.#webhooks.delete(webhook);
        throw error;
      });
      this.#webhooks.set(webhook, read);
    }
    return read;
  }
}

/** Remedies.now for one delivery (a command that reads one). */
export const remedyNow = (
  platform: Platform,
  webhook: string,
  cause: DeliveryFailureCause,
  error?: string | null,
): Promise<string> => new Remedies(platform).now(webhook, cause, error);

import type { Context } from '../context.js';
import type { AuthError } from '../errors.js';
import { sym } from '../output/symbols.js';
import { realSleep } from '../system/clock.js';
import { AuthorizationRefusedError, refusalPage } from './authorization-response.js';
import { failurePage, type LoopbackReceiver, type PageEnding } from './loopback.js';
import { ISSUER_HINT_TIMEOUT_MS, ISSUER_NOTICE_MS } from './metadata.js';

/** The step a response without `iss` fails at, from a server that promises one (RFC 9207 §2.4). */
export const ISSUER_STEP = 'the response does not say which authorization server sent it';

/** The page a held tab gets while the check of a response without `iss` takes long: it claims nothing. */
const CHECKING: PageEnding = {
  ok: true,
  title: 'Checking the response',
  text: 'svc is asking the server whether this response is its own. See your terminal for how it ends; you can close this tab.',
};

/**
 * Whether the server promises `iss`, awaited once a response came without it (the read began
 * with the login). Unanswered after ISSUER_NOTICE_MS (up to ISSUER_HINT_TIMEOUT_MS in all), one
 * line says what svc waits for, and a held browser tab is answered with a page that claims
 * nothing, rather than spin (review28e, also noted).
 */
export async function issuerChecked(
  ctx: Context,
  issuerPromised: Promise<boolean>,
  receiver: LoopbackReceiver,
): Promise<boolean> {
  const answered = new AbortController();
  const notice = (ctx.clock.sleep ?? realSleep)(ISSUER_NOTICE_MS, answered.signal).then(
    async () => {
      if (answered.signal.aborted) return;
      ctx.out.info(
        `the response has no iss: asking the server whether it promises one (up to ${ISSUER_HINT_TIMEOUT_MS / 1000} s)${sym.ellipsis}`,
      );
      await receiver.answer(CHECKING);
    },
    () => {},
  );
  try {
    return await issuerPromised;
  } finally {
    answered.abort();
    await notice;
  }
}

/** The page of an error response without `iss` once svc took it as this server's: its own words. */
export const refusedPage = (error: AuthError): PageEnding | undefined =>
  error instanceof AuthorizationRefusedError ? failurePage(refusalPage(error.serverCode)) : undefined;

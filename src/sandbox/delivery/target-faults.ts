import { SANDBOX_INJECTED } from '../../api/constants.js';
import { type AttemptOutcome, classifyResponse } from './classify.js';

/**
 * Targets made to fail on purpose (PUT /_sandbox/webhooks/{id}/target-fault, `svc sandbox
 * target`): while a webhook has a fault, its attempts are not sent; each is recorded as the
 * failure the fault names, classified as a real one would be, and retried and dead-lettered by
 * the same rules. Its last_error says the sandbox injected it, so nobody mistakes it for the
 * target's doing. Clearing the fault lets the next attempt go to the target again.
 */
export const TARGET_FAULTS = ['status', 'timeout', 'refused', 'tls'] as const;
export type TargetFaultKind = (typeof TARGET_FAULTS)[number];

export interface TargetFault {
  fault: TargetFaultKind;
  /** `status`: the HTTP status the target seems to answer (300 to 599). */
  status_code: number | null;
}

const INJECTED = SANDBOX_INJECTED;

export function injectedOutcome(fault: TargetFault, timeoutMs: number): AttemptOutcome {
  switch (fault.fault) {
    case 'status': {
      const outcome = classifyResponse(fault.status_code ?? 500, '');
      // An empty answer: no body to withhold.
      return { ...outcome, error: `${outcome.error}, ${INJECTED}`, withoutBody: null };
    }
    case 'timeout':
      return {
        ok: false,
        statusCode: null,
        cause: 'connection_timeout',
        error: `connection_timeout: no answer within ${timeoutMs / 1000} s, ${INJECTED}`,
        withoutBody: null,
      };
    case 'refused':
      return {
        ok: false,
        statusCode: null,
        cause: 'connection_timeout',
        error: `connection_timeout: the target is unreachable: connection refused (ECONNREFUSED), ${INJECTED}`,
        withoutBody: null,
      };
    case 'tls':
      return {
        ok: false,
        statusCode: null,
        cause: 'tls_handshake_failed',
        error: `tls_handshake_failed: certificate has expired (CERT_HAS_EXPIRED), ${INJECTED}`,
        withoutBody: null,
      };
  }
}

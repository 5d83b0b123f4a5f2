// What `webhooks listen` is asked (parsed in ./listen.ts, run by ./listen-run.ts), and its defaults.
import type { CaptureDisk } from './capture.js';

export const DEFAULT_LISTEN_PORT = 4011;
/**
 * How long a forward may take: the platform's attempt timeout (the sandbox's default; the API does
 * not show a webhook's), so the listener never answers after the sender has given up.
 */
export const DEFAULT_FORWARD_TIMEOUT_SECONDS = 10;
/** The largest body listen takes by default (`--max-body`): a larger one is refused with 413. */
export const DEFAULT_MAX_BODY_MIB = 5;

/** The largest body this listen takes, in MiB: its --max-body, or the default. */
export const maxBodyMiB = (options: Pick<ListenOptions, 'maxBodyMiB'>): number =>
  options.maxBodyMiB ?? DEFAULT_MAX_BODY_MIB;

export interface ListenOptions {
  host: string;
  port: number;
  secretFile: string | undefined;
  forwardTo: URL | undefined;
  /** Default DEFAULT_FORWARD_TIMEOUT_SECONDS. */
  forwardTimeoutSeconds?: number;
  /** 0: the timestamp is not checked (as for `verify`, and Stripe's verifiers). */
  toleranceSeconds: number;
  /** Default DEFAULT_MAX_BODY_MIB. */
  maxBodyMiB?: number;
  /** Point this webhook at the listener while it runs (and put it back). */
  webhook: string | undefined;
  /** Take --webhook over even when another listen session has it. */
  takeOver?: boolean;
  /** The URL the platform delivers to, when the listener is reached through a tunnel. */
  publicUrl: URL | undefined;
  /** Keep each request's head and raw body in this directory. */
  capture: string | undefined;
  /** How captures reach the disk: a test's seam (a disk that fills up); svc uses the real one. */
  captureDisk?: CaptureDisk;
}

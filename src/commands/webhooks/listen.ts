// `webhooks listen`: its flags, checked before anything starts, and its help; the run is ./listen-run.ts.
import { Command, Option } from 'commander';
import { redactUrlText } from '../../api/secret-names.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../webhooks/signature.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import {
  DEFAULT_FORWARD_TIMEOUT_SECONDS,
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_BODY_MIB,
  type ListenOptions,
} from './listen-options.js';
import { runListen } from './listen-run.js';
import { SECRET_ENV, secretFileFlag } from './shared.js';

/**
 * An http(s) URL flag. A user name or password in it is refused, the value not repeated (as
 * --base-url's, sig13 9): a forward does not send them and the platform does not either, so
 * accepting one would echo a credential and then drop it.
 */
function httpUrlFlag(flag: string, raw: unknown, userInfoHint: string): URL | undefined {
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(String(raw));
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${flag} must be an http or https URL, got ${quoted(redactUrlText(String(raw)))}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flag} must not hold a user name or password`, { hint: userInfoHint });
  }
  return url;
}

export function parseListen(flags: Record<string, unknown>): ListenOptions {
  const webhook = flags.webhook === undefined ? undefined : nonEmpty('--webhook', flags.webhook);
  if (webhook && flags.secretFile !== undefined) {
    throw new UsageError(
      "--webhook rotates the webhook's secret for the session and verifies with it; leave out --secret-file",
    );
  }
  if (!webhook && flags.takeOver !== undefined) {
    throw new UsageError('--take-over takes a webhook over from another listen session; it needs --webhook');
  }
  if (!flags.forwardTo && flags.forwardTimeout !== undefined) {
    throw new UsageError('--forward-timeout limits how long a forward may take; it needs --forward-to');
  }
  if (!webhook && flags.publicUrl !== undefined) {
    throw new UsageError('--public-url says where --webhook points the webhook; it needs --webhook');
  }
  return {
    host: String(flags.host ?? '127.0.0.1'),
    port: intFlag('--port', flags.port, 0, 65_535) ?? DEFAULT_LISTEN_PORT,
    secretFile: secretFileFlag(flags.secretFile),
    forwardTo: httpUrlFlag(
      '--forward-to',
      flags.forwardTo,
      'forwards carry no credentials; let your app take them from this listener (e.g. on 127.0.0.1) without basic auth',
    ),
    forwardTimeoutSeconds:
      intFlag('--forward-timeout', flags.forwardTimeout, 1, 600) ?? DEFAULT_FORWARD_TIMEOUT_SECONDS,
    toleranceSeconds:
      intFlag('--tolerance', flags.tolerance, 0, 10 * 365 * 86_400) ?? DEFAULT_TOLERANCE_SECONDS,
    maxBodyMiB: intFlag('--max-body', flags.maxBody, 1, 1024),
    webhook,
    takeOver: flags.takeOver === true,
    publicUrl: httpUrlFlag(
      '--public-url',
      flags.publicUrl,
      'the platform sends no credentials to a webhook URL; the signature is what proves a delivery',
    ),
    capture: flags.capture === undefined ? undefined : nonEmpty('--capture', flags.capture),
  };
}

export function listenCommand(make: MakeContext): Command {
  return new Command('listen')
    .summary('Receive and verify deliveries locally')
    .description(
      'A local receiving endpoint for webhook deliveries (POST to any path). Each one is verified (signature\n' +
        "and timestamp) and printed as one line, or one JSON object with --ndjson/--json (with the body's\n" +
        'sha256). Valid deliveries get 200, invalid ones 400 {"error":"invalid_signature",…}; an event id seen\n' +
        `before gets a warning. A body over ${DEFAULT_MAX_BODY_MIB} MiB (--max-body) gets 413 and is counted as refused (too large),\n` +
        'its signature never checked. --tolerance 0 checks the signature only, not the timestamp: the start line\n' +
        'and each line say so ("timestamp not checked"; "timestamp_checked":false in JSON). With --forward-to, valid deliveries are sent on with their original body and\n' +
        "headers (hop-by-hop headers, those named in Connection, Expect and Host excepted) and the target's answer is returned; a forward has the\n" +
        "platform's attempt timeout (--forward-timeout, 10 s), and an answer the sender hung up before is said so.\n" +
        "A --forward-to of the listener's own address is refused; forwards carry Via: 1.1 svc-listen-<session>, and\n" +
        'one that comes back is answered 508 Loop Detected, not counted. A secret svc knows is masked in every line.\n' +
        'Runs until Ctrl-C (or SIGTERM, or a closed terminal). Exit 0 when stopped by Ctrl-C and, with --webhook, W was\n' +
        'put back; svc then waits for forwards in flight, and a second Ctrl-C abandons them (exit 130), never W\n' +
        "being put back or set up: that finishes first. When stdout's reader goes away (`| head -1`) or a write to it\n" +
        'fails, the listener stops as on Ctrl-C (later deliveries fail and the platform retries them; W is put back)\n' +
        'and exits 141 (1 for a failed write), naming the requests whose line was lost. Without --capture or\n' +
        '--forward-to a valid delivery is answered only once stdout has taken its line: one whose line cannot\n' +
        'be written gets 503, not acknowledged, and the platform retries it. Taken is not read: a line stdout\n' +
        'took sits in the pipe, and a reader that leaves (head -1, grep -m1) drops what it had not read, though\n' +
        'those deliveries were acknowledged; svc names the ones whose lines were in the last 128 KiB it wrote,\n' +
        "with the replay that sends them again. A slow reader slows the answers: past the platform's attempt\n" +
        'timeout (10 s) the sender gives up, and a line that printed → 200 is followed by a warning that it got\n' +
        'no answer (the platform retries it); so is one still waiting for stdout at Ctrl-C; the summary counts them.\n' +
        'With --capture or --forward-to, which keep what arrives, it says so once and goes on (exit 141 at the\n' +
        'end, naming the requests not printed).\n\n' +
        '--webhook W points that webhook here while svc runs (as `stripe listen` does): its secret is rotated so\n' +
        'svc can verify (deliveries carry the old secret too; until svc has the new one, every request is answered\n' +
        '503 with Retry-After, judged neither valid nor invalid), and on Ctrl-C the URL and the old secret are put back\n' +
        '(before its first change svc prints the commands that do it by hand, for when it is killed; a Ctrl-C during\n' +
        'set-up undoes what took effect, exit 130). The URL it gives W carries ?svc-listen=<session>: a second\n' +
        'session on W is refused (exit 6) unless --take-over (the taking session gives W back to the other on exit;\n' +
        'if the other stops first, it leaves W alone and prints what to run later), and W is put back only if it is\n' +
        'still as the session left it (its URL, its secret_rotated_at); else svc leaves it alone and says so (exit 6).\n' +
        "Changing W's URL makes you its owner; putting it back gives W back to its owner before, if they would keep\n" +
        "it (they hold its kinds' read permissions); if not, svc says you now own it. Rotating a secret is for a\n" +
        "user with their own login: with an API key or a third-party client's token (GET /v1/me says which),\n" +
        '--webhook is refused before anything starts (exit 4, user_required; nothing changed).\n' +
        '--capture DIR keeps each request in\n' +
        'DIR (0700): NNNN-<delivery>-<attempt>.headers (request line and headers as sent) and .body (the raw bytes), files\n' +
        '0600 that `svc webhooks verify --header-file F.headers --payload F.body` takes as they are; in a DIR used\n' +
        'before, numbering carries on after the highest NNNN there (nothing is overwritten). A 2xx means saved\n' +
        'whole: a valid delivery that could not be (a full disk) gets 503 with Retry-After, is not forwarded, and\n' +
        'the platform retries it; a warning names it, and nothing of it is left in DIR. A delivery id that is long\n' +
        'or holds other characters than letters, digits, ".", "_" and "-" is named by its first 60 readable\n' +
        'characters and a digest of it; F.headers holds it as sent.',
    )
    .addOption(
      new Option('--port <n>', `port to listen on; 0 picks a free one (default ${DEFAULT_LISTEN_PORT})`),
    )
    .addOption(new Option('--host <host>', 'interface to bind').default('127.0.0.1'))
    .addOption(new Option('--secret-file <file>', `file holding the signing secret (or set ${SECRET_ENV})`))
    .addOption(
      new Option('--forward-to <url>', 'send valid deliveries on to this URL, untouched (no user:password@)'),
    )
    .addOption(
      new Option(
        '--forward-timeout <seconds>',
        `with --forward-to: how long the target may take (default ${DEFAULT_FORWARD_TIMEOUT_SECONDS})`,
      ),
    )
    .addOption(
      new Option('--webhook <id>', 'point this webhook here while svc runs, and put it back on exit'),
    )
    .addOption(
      new Option('--take-over', 'with --webhook: take the webhook even when another listen session has it'),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'with --webhook: the URL the platform reaches this listener at (a tunnel; no user:password@)',
      ),
    )
    .addOption(new Option('--capture <dir>', "save each request's headers and raw body in DIR, for verify"))
    .addOption(
      new Option(
        '--tolerance <seconds>',
        `allowed clock difference, both ways (default ${DEFAULT_TOLERANCE_SECONDS}; 0: no check, so a delivery of any age is accepted, as by verify)`,
      ),
    )
    .addOption(
      new Option(
        '--max-body <MiB>',
        `refuse bodies larger than this, with 413 (default ${DEFAULT_MAX_BODY_MIB})`,
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc webhooks listen --secret-file whsec.txt', 'receive on http://127.0.0.1:4011 and verify'],
        [
          'svc webhooks listen --port 0 --secret-file whsec.txt --forward-to http://localhost:3000/webhooks',
          'verify, then pass each delivery to your app',
        ],
        ['svc webhooks listen --secret-file whsec.txt --ndjson | jq .valid', 'one JSON object per delivery'],
        [
          'svc webhooks listen --webhook wh_123 --capture ./captured',
          'receive wh_123 here while svc runs, saving each request',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseListen(flags);
      await runListen(await make(cmd), options);
    });
}

import { once } from 'node:events';
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { cellText } from '../../output/format.js';
import type { Forwarder, ReceivedDelivery } from '../../webhooks/listen.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../webhooks/signature.js';
import { examples, intFlag, type MakeContext } from '../kit.js';
import { readSecret, SECRET_ENV, secretFileFlag } from './shared.js';

export const DEFAULT_LISTEN_PORT = 4011;

export interface ListenOptions {
  host: string;
  port: number;
  secretFile: string | undefined;
  forwardTo: URL | undefined;
  toleranceSeconds: number;
}

export function parseListen(flags: Record<string, unknown>): ListenOptions {
  let forwardTo: URL | undefined;
  if (flags.forwardTo !== undefined) {
    try {
      forwardTo = new URL(String(flags.forwardTo));
    } catch {
      forwardTo = undefined;
    }
    if (!forwardTo || (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:')) {
      throw new UsageError(
        `--forward-to must be an http or https URL, got ${JSON.stringify(String(flags.forwardTo))}`,
      );
    }
  }
  return {
    host: String(flags.host ?? '127.0.0.1'),
    port: intFlag('--port', flags.port, 0, 65_535) ?? DEFAULT_LISTEN_PORT,
    secretFile: secretFileFlag(flags.secretFile),
    forwardTo,
    toleranceSeconds:
      intFlag('--tolerance', flags.tolerance, 0, 10 * 365 * 86_400) ?? DEFAULT_TOLERANCE_SECONDS,
  };
}

/** Forwards with svc's HTTP stack (undici, honouring HTTP(S)_PROXY and NO_PROXY). */
async function forwarder(
  ctx: Context,
  target: URL,
): Promise<{ forward: Forwarder; close: () => Promise<void> }> {
  const { EnvHttpProxyAgent, request } = await import('../../http/undici.js');
  const env = ctx.env;
  const agent = new EnvHttpProxyAgent({
    httpProxy: env.HTTP_PROXY ?? env.http_proxy,
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
    noProxy: env.NO_PROXY ?? env.no_proxy,
  });
  return {
    forward: async (body, headers) => {
      const response = await request(agent, target, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(30_000),
      });
      const answer = Buffer.from(await response.body.arrayBuffer());
      const type = response.headers['content-type'];
      const answerHeaders: Record<string, string> = typeof type === 'string' ? { 'content-type': type } : {};
      return {
        status: response.statusCode,
        headers: answerHeaders,
        body: answer,
      };
    },
    close: () => agent.close(),
  };
}

/** One human line per request; what the request said (ids, types, errors) is escaped, even when unsigned. */
function line(ctx: Context, r: ReceivedDelivery): string {
  const c = ctx.out.color;
  const time = r.received_at.slice(11, 19);
  const verdict = r.valid ? c.green('✓ valid  ') : c.red('✗ invalid');
  const what = [
    r.event_type ?? '-',
    r.event_id ?? '-',
    r.delivery_id ? `${r.delivery_id}#${r.attempt ?? '?'}` : '-',
  ];
  const notes: string[] = [];
  if (!r.valid) notes.push(`${r.reason}: ${r.message ?? ''}`.trim());
  if (r.forwarded)
    notes.push(
      'status' in r.forwarded ? `forwarded → ${r.forwarded.status}` : `forward failed: ${r.forwarded.error}`,
    );
  if (r.repeated) notes.push('repeated event');
  const said = cellText(
    `${what.join('  ')}  ${r.bytes} B  → ${r.status}${notes.length ? `  (${notes.join('; ')})` : ''}`,
  );
  return `${time}  ${verdict}  ${said}`;
}

export async function runListen(ctx: Context, options: ListenOptions): Promise<void> {
  const secret = await readSecret(ctx, options.secretFile);
  const { startListener } = await import('../../webhooks/listen.js');
  const forwarding = options.forwardTo ? await forwarder(ctx, options.forwardTo) : undefined;
  // Lines are written in arrival order; a slow reader of stdout delays printing, not answering.
  let printing = Promise.resolve();
  const print = (record: ReceivedDelivery) => {
    printing = printing
      .then(() => (ctx.out.isMachine ? ctx.out.jsonLine(record) : ctx.out.write(`${line(ctx, record)}\n`)))
      .catch(() => {});
  };
  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      host: options.host,
      port: options.port,
      secret,
      toleranceSeconds: options.toleranceSeconds,
      now: () => ctx.clock.now(),
      ...(forwarding ? { forward: forwarding.forward } : {}),
      onDelivery: (record) => {
        if (record.repeated) {
          ctx.out.warn(
            `event ${record.event_id} was received before (a retry or a replay): receivers must handle it once`,
          );
        }
        print(record);
      },
    });
  } catch (error) {
    await forwarding?.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(`port ${options.port} on ${options.host} is already in use`, {
        hint: 'pass another --port, or --port 0 for a free one',
      });
    }
    throw error;
  }
  ctx.out.info(
    `listening on ${listener.url} — point a webhook there; verifying with tolerance ±${options.toleranceSeconds} s` +
      `${options.forwardTo ? `, forwarding valid deliveries to ${options.forwardTo.href}` : ''}. Ctrl-C stops.`,
  );
  if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
  await listener.close();
  await forwarding?.close();
  await printing;
  const { received, valid, invalid, repeated } = listener.counts;
  ctx.out.info(
    `stopped after ${received} request(s): ${valid} valid, ${invalid} invalid${repeated ? `, ${repeated} repeated event(s)` : ''}`,
  );
}

export function listenCommand(make: MakeContext): Command {
  return new Command('listen')
    .summary('Receive and verify deliveries locally')
    .description(
      'A local receiving endpoint for webhook deliveries (POST to any path). Each one is verified (signature\n' +
        "and timestamp) and printed as one line, or one JSON object with --ndjson/--json (with the body's\n" +
        'sha256). Valid deliveries get 200, invalid ones 400 {"error":"invalid_signature",…}; an event id seen\n' +
        'before gets a warning. With --forward-to, valid deliveries are sent on with their original body and\n' +
        "headers (hop-by-hop headers and Host excepted) and the target's answer is returned. Runs until Ctrl-C.",
    )
    .addOption(
      new Option('--port <n>', `port to listen on; 0 picks a free one (default ${DEFAULT_LISTEN_PORT})`),
    )
    .addOption(new Option('--host <host>', 'interface to bind').default('127.0.0.1'))
    .addOption(new Option('--secret-file <file>', `file holding the signing secret (or set ${SECRET_ENV})`))
    .addOption(new Option('--forward-to <url>', 'send valid deliveries on to this URL, untouched'))
    .addOption(
      new Option(
        '--tolerance <seconds>',
        `allowed clock difference, both ways (default ${DEFAULT_TOLERANCE_SECONDS})`,
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
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseListen(flags);
      await runListen(await make(cmd), options);
    });
}

import { describe, expect, it } from 'vitest';
import { redactHeader, redactTracedBody } from '../../../src/http/redact.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

// s18 mask18 #4: a server that echoes a webhook's URL in its error (`url https://…?token=… is
// not reachable`) had it printed whole on the error line and in --json's error, and a --debug
// trace body masked a URL only when a member was the URL itself, not inside a sentence. The
// error and the trace name it masked, as every label does.
const server = useHostileServer();
const dirs = useTempDirs();
const URL_ = 'https://hooks.example.com/in?token=SECRETTOKEN123&x=1';
const MASKED = 'https://hooks.example.com/in?token=[redacted]&x=1';
const REFUSAL = {
  error: {
    code: 'validation_failed',
    message: `url ${URL_} is not reachable.`,
    details: [{ field: 'url', message: `connecting to ${URL_}: refused` }],
  },
};

describe('a server that echoes a webhook URL in its error', () => {
  it('is named masked on the error line', async () => {
    const s = await server();
    s.answer(answers.json(400, REFUSAL));
    const r = await runInProcess(
      ['webhooks', 'create', '--url', URL_, '--event-type', 'exception.created', '--show-secret'],
      { ...dirs(), ...hostileEnv(s) },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --url ${MASKED} is not reachable. [url: connecting to ${MASKED}: refused] (HTTP 400, validation_failed)\n`,
    );
  });

  it('is named masked in the --json error', async () => {
    const s = await server();
    s.answer(answers.json(400, REFUSAL));
    const r = await runInProcess(
      ['webhooks', 'create', '--url', URL_, '--event-type', 'exception.created', '--show-secret', '--json'],
      { ...dirs(), ...hostileEnv(s) },
    );
    expect(r.stderr).not.toContain('SECRETTOKEN123');
    const { error } = JSON.parse(r.stderr);
    expect([error.message, error.details]).toEqual([
      `--url ${MASKED} is not reachable.`,
      [{ field: 'url', message: `connecting to ${MASKED}: refused` }],
    ]);
  });

  it('is masked inside a sentence of a --debug trace body', () => {
    expect(redactTracedBody(JSON.stringify(REFUSAL), 'application/json')).toBe(
      JSON.stringify({
        error: {
          code: 'validation_failed',
          message: `url ${MASKED} is not reachable.`,
          details: [{ field: 'url', message: `connecting to ${MASKED}: refused` }],
        },
      }),
    );
  });

  it('is masked in a --debug trace as an item of a list, at the top of a body, and in any header', () => {
    expect(
      redactTracedBody(JSON.stringify({ redirect_uris: [URL_], nested: [[URL_]] }), 'application/json'),
    ).toBe(JSON.stringify({ redirect_uris: [MASKED], nested: [[MASKED]] }));
    expect(redactTracedBody(JSON.stringify([URL_]), 'application/json')).toBe(JSON.stringify([MASKED]));
    expect(redactHeader('X-Webhook-Url', URL_)).toBe(MASKED);
    // A Location that does not parse: fail-safe, every query value.
    expect(redactHeader('Location', 'https://h.example:99999/cb?a=SECRET1')).toBe(
      'https://h.example:99999/cb?a=[redacted]',
    );
  });
});

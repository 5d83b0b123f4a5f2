/**
 * svc's Inquirer prompter (src/system/prompter.ts) over streams the test holds: platform data in
 * a question, a choice or its description reaches the terminal with its control characters made
 * visible, as in every table; the answer is still the value the caller gave. And a prompt whose
 * input ends (Ctrl-D) is an interruption the run hears while it can still set its exit code.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { inquirerPrompter } from '../../src/system/prompter.js';
import { until } from '../helpers/webhooks.js';

/** The exact payloads of review s12 (terminal12, finding 1): title, clipboard, colours, bidi. */
const EVIL = 'desc\x1b]0;PWNED-TITLE\x07\x1b]52;c;cHduZWQ=\x07\x1b[31mRED\x1b[0m\u202eevil';
const TENANT = 'Evil\x1b]0;TENANT-TITLE\x07\x1b]52;c;dGVuYW50\x07\x1b[41mBG';
const SHOWN_EVIL = 'desc\\x1b]0;PWNED-TITLE\\x07\\x1b]52;c;cHduZWQ=\\x07\\x1b[31mRED\\x1b[0m\\u202eevil';
const SHOWN_TENANT = 'Evil\\x1b]0;TENANT-TITLE\\x07\\x1b]52;c;dGVuYW50\\x07\\x1b[41mBG';

function terminal(signal?: AbortSignal) {
  const input = new PassThrough();
  let written = '';
  const output = new Writable({
    write(chunk, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  // Wide: Inquirer wraps what it shows to the width, and the assertions read whole lines.
  Object.assign(output, { columns: 500 });
  return {
    input,
    output,
    prompter: inquirerPrompter(input, output, { color: false, ...(signal ? { signal } : {}) }),
    written: () => written,
  };
}

/** What the data could do on a terminal: set a title, write the clipboard, colour, reverse text. */
function expectNothingPerformed(written: string): void {
  expect(written).not.toMatch(/\x1b\]/);
  expect(written).not.toContain('\x07');
  expect(written).not.toContain('\x1b[31m');
  expect(written).not.toContain('\x1b[41m');
  expect(written).not.toContain('\u202e');
}

const answered = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('platform data in a prompt', () => {
  it('a picker shows choice names and descriptions escaped, and answers with the value', async () => {
    const t = terminal();
    const picked = t.prompter.select(`Webhook of ${TENANT}`, [
      { name: `wh_1  https://example.com/${TENANT}`, value: 'wh_1', description: `enabled · ${EVIL}` },
      { name: `wh_2  ${EVIL}`, value: 'wh_2', description: `disabled · ${EVIL}` },
    ]);
    await answered();
    t.input.write('\x1b[B'); // Down: the second, its description shown
    await answered();
    t.input.write('\r');
    await expect(picked).resolves.toBe('wh_2');
    const written = t.written();
    expectNothingPerformed(written);
    expect(written).toContain(`Webhook of ${SHOWN_TENANT}`);
    expect(written).toContain(`wh_1  https://example.com/${SHOWN_TENANT}`);
    expect(written).toContain(`enabled · ${SHOWN_EVIL}`);
    expect(written).toContain(`disabled · ${SHOWN_EVIL}`);
    expect(written).toContain(`wh_2  ${SHOWN_EVIL}`);
  });

  it("a confirmation shows the tenant's name escaped, asked and answered", async () => {
    const t = terminal();
    const ok = t.prompter.confirm(`Delete reconciliations record rec_1 in ${TENANT} (evil)?`);
    await answered();
    t.input.write('n\r');
    await expect(ok).resolves.toBe(false);
    expectNothingPerformed(t.written());
    expect(t.written()).toContain(`Delete reconciliations record rec_1 in ${SHOWN_TENANT} (evil)?`);
  });

  it('an input shows its question, default and refusal escaped; Enter answers with the default as it is', async () => {
    const t = terminal();
    const answer = t.prompter.input(`Justification for ${TENANT}`, {
      default: `keep ${EVIL}`,
      validate: (value) => (value.startsWith('keep') ? true : `not ${EVIL}`),
    });
    await until(() => t.written().includes('Justification for'));
    t.input.write('x\r');
    // The refusal is shown once the validation has run (a fixed wait was too short under load).
    await until(() => t.written().includes(`not ${SHOWN_EVIL}`));
    t.input.write('\x7f\r'); // Backspace, then Enter on the empty line: the default
    const password = terminal();
    const secret = password.prompter.password(`Secret of ${TENANT}:`);
    await until(() => password.written().includes('Secret of'));
    password.input.write('s3\r');
    await expect(secret).resolves.toBe('s3');
    expectNothingPerformed(password.written());
    expect(password.written()).toContain(`Secret of ${SHOWN_TENANT}:`);
    await expect(answer).resolves.toBe(`keep ${EVIL}`);
    expectNothingPerformed(t.written());
    expect(t.written()).toContain(`Justification for ${SHOWN_TENANT}`);
    expect(t.written()).toContain(`(keep ${SHOWN_EVIL})`);
  });

  it('an input answered with Enter alone gives the default unchanged', async () => {
    const t = terminal();
    const answer = t.prompter.input('Expires in', { default: `8h${EVIL}` });
    await answered();
    t.input.write('\r');
    await expect(answer).resolves.toBe(`8h${EVIL}`);
    expectNothingPerformed(t.written());
  });
});

/** Settles within a second, or says it did not (the old prompt stayed pending for good). */
const settled = <T>(promise: Promise<T>) =>
  Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise((resolve) => setTimeout(() => resolve('still pending'), 1000)),
  ]);

describe('the end of input at a prompt (Ctrl-D)', () => {
  it.each<[string, (p: ReturnType<typeof inquirerPrompter>) => Promise<unknown>]>([
    ['a confirmation', (p) => p.confirm('Delete role evil_two?')],
    ['a picker', (p) => p.select('Role', [{ name: 'a', value: 'a' }])],
    ['an input', (p) => p.input('User id')],
  ])('%s is an interruption (exit 130), heard while the run goes on', async (_what, ask) => {
    const t = terminal();
    const asked = ask(t.prompter);
    await answered();
    t.input.write('\x04');
    const outcome = (await settled(asked)) as { error?: unknown };
    expect(outcome.error).toBeInstanceOf(InterruptedError);
    expect((outcome.error as Error).message).toBe('cancelled at the prompt (end of input)');
  });
});

describe("the command's signal at a prompt (SIGTERM, a closed terminal's SIGHUP)", () => {
  it.each<[string, (p: ReturnType<typeof inquirerPrompter>) => Promise<unknown>]>([
    ['a confirmation', (p) => p.confirm('Delete role evil_two?')],
    ['a picker', (p) => p.select('Role', [{ name: 'a', value: 'a' }])],
  ])('ends %s at once: an interruption (exit 130), nothing changed', async (_what, ask) => {
    const stop = new AbortController();
    const t = terminal(stop.signal);
    const asked = ask(t.prompter);
    await answered();
    stop.abort();
    const outcome = (await settled(asked)) as { error?: unknown };
    expect(outcome.error).toBeInstanceOf(InterruptedError);
    expect((outcome.error as Error).message).toBe('stopped at the prompt; nothing was changed');
  });

  it('a prompt asked after the signal is not shown', async () => {
    const stop = new AbortController();
    stop.abort();
    const t = terminal(stop.signal);
    await expect(t.prompter.confirm('Delete?')).rejects.toThrow(
      'stopped before the prompt; nothing was changed',
    );
    expect(t.written()).toBe('');
  });
});

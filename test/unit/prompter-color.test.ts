// The Inquirer prompts follow svc's colour decision (src/output/io.ts: --no-color, NO_COLOR,
// FORCE_COLOR, TERM=dumb, a terminal or not), not the one Inquirer's colour library makes from the
// environment when it loads: `svc --no-color roles delete R` drew its question in blue and bold.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inquirerPrompter } from '../../src/system/prompter.js';

const SGR = /\u001b\[[0-9;]*m/;

/**
 * A prompt on a fake terminal: each of `keys` is typed once the prompt has drawn something new
 * since the last keys, and a `[shown, keys]` pair once `shown` is drawn (a validation's message:
 * keys typed while a prompt validates are dropped, so a fixed pause could lose them under load);
 * returns what was drawn.
 */
async function ask<T>(
  color: boolean,
  question: (p: ReturnType<typeof inquirerPrompter>) => Promise<T>,
  ...keys: Array<string | [shown: string, typed: string]>
) {
  const input = new PassThrough();
  const output = new PassThrough();
  let drawn = '';
  output.on('data', (chunk: Buffer) => {
    drawn += chunk.toString('utf8');
  });
  const answer = question(inquirerPrompter(input, output, { color }));
  let seen = 0;
  for (const key of keys) {
    const [shown, typed] = typeof key === 'string' ? [undefined, key] : key;
    const ready = () => (shown === undefined ? drawn.length > seen : drawn.includes(shown));
    while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
    seen = drawn.length;
    input.write(typed);
  }
  return { answer: await answer, drawn };
}

// The answered line: a ✓ only for a Yes. A No had the green ✓ too, and a long question wrapped at
// 80 columns left its first line reading as done (attack22b F4).
describe('a confirmation answered', () => {
  const question =
    'Revoke payments-reconciliation-approver-apac from usr_lead in Acme Treasury (acme-treasury)?';
  /** The answered question as last drawn (after the last cursor-to-column-1, before the next escape). */
  const answered = (drawn: string) => drawn.slice(drawn.lastIndexOf('\u001b[G') + 3).split('\u001b[1A')[0];

  it('at 80 columns No keeps the question mark on the first line; Yes gets the tick', async () => {
    const no = await ask(false, (p) => p.confirm(question), 'n\r');
    expect(no.answer).toBe(false);
    expect(answered(no.drawn)).toBe(
      '? Revoke payments-reconciliation-approver-apac from usr_lead in Acme Treasury\n(acme-treasury)? No',
    );
    const yes = await ask(false, (p) => p.confirm(question), 'y\r');
    expect(yes.answer).toBe(true);
    expect(answered(yes.drawn)).toBe(
      '✓ Revoke payments-reconciliation-approver-apac from usr_lead in Acme Treasury\n(acme-treasury)? Yes',
    );
  });

  it('with colour: a No (the default taken) is drawn with the blue question mark, never the green tick', async () => {
    const no = await ask(true, (p) => p.confirm(question), '\r');
    expect(no.answer).toBe(false);
    expect(answered(no.drawn)).toMatch(/^\u001b\[34m\?\u001b\[39m \u001b\[1mRevoke /);
    expect(no.drawn).not.toContain('\u001b[32m');
  });
});

describe('inquirerPrompter colour', () => {
  it('without colour: a confirmation and its answer carry no SGR sequence', async () => {
    const r = await ask(false, (p) => p.confirm('Delete role evil_two?'), 'n\r');
    expect(r.answer).toBe(false);
    expect(r.drawn).toContain('? Delete role evil_two? (y/N)');
    expect(r.drawn).toContain('Delete role evil_two? No');
    expect(r.drawn).not.toMatch(SGR);
  });

  it('without colour: a picker, its highlighted choice, description and key help carry none either', async () => {
    const r = await ask(
      false,
      (p) =>
        p.select('Tenant', [
          { name: 'Acme (acme)', value: 'a', description: 'pro' },
          { name: 'Beta (beta)', value: 'b' },
        ]),
      '\r',
    );
    expect(r.answer).toBe('a');
    expect(r.drawn).toContain('Acme (acme)');
    expect(r.drawn).toContain('pro');
    expect(r.drawn).not.toMatch(SGR);
  });

  it('without colour: input and password prompts, and a validation error, carry none', async () => {
    const input = await ask(
      false,
      (p) => p.input('User id', { validate: (v) => (v === 'usr_1' ? true : 'not a user id') }),
      'x\r',
      ['not a user id', '\u007fusr_1\r'],
    );
    expect(input.answer).toBe('usr_1');
    expect(input.drawn).toContain('not a user id');
    expect(input.drawn).not.toMatch(SGR);
    const secret = await ask(false, (p) => p.password('Secret'), 's3cret\r');
    expect(secret.answer).toBe('s3cret');
    expect(secret.drawn).not.toMatch(SGR);
  });

  it('with colour: the question is bold and the answer coloured, whatever the environment says', async () => {
    const r = await ask(true, (p) => p.confirm('Delete role evil_two?'), 'y\r');
    expect(r.answer).toBe(true);
    expect(r.drawn).toContain('\u001b[1mDelete role evil_two?\u001b[22m');
    expect(r.drawn).toMatch(/\u001b\[36mYes\u001b\[39m/);
  });
});

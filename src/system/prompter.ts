import type { Readable, Writable } from 'node:stream';
import { InterruptedError } from '../errors.js';
import { cellText } from '../output/format.js';
import { guardRawMode, terminalGone } from './lost-terminal.js';
import { promptTheme } from './prompt-theme.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

/** Interactive questions. Only used when the Context says it can prompt (stdin and stdout are TTYs). */
export interface Prompter {
  input(
    message: string,
    options?: { default?: string; validate?: (value: string) => true | string },
  ): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  select<T>(message: string, choices: Array<Choice<T>>): Promise<T>;
}

/**
 * Text a prompt shows: one line, control characters made visible, as in every table cell
 * (format.ts). Questions, choices, descriptions and defaults carry platform data (a tenant's
 * name, a webhook's description): raw, OSC 0/52 would set the title or write the clipboard.
 */
const shown = (text: string): string => cellText(text);

/**
 * Inquirer's prompts on the given terminal streams; Ctrl-C at a prompt means exit 130, and so
 * does the end of input (Ctrl-D): readline closes and pauses the input, and with nothing else
 * holding the event loop Node would exit with 0 before the prompt is rejected, so the pause
 * itself is heard. Ctrl-Z then `fg`: readline pauses the input on SIGCONT and leaves resuming to
 * its owner, which Inquirer does not do; the input is resumed here and the prompt goes on. Each
 * prompt is its own package: the @inquirer/prompts barrel also bundles the editor prompt and its
 * iconv-lite (about 540 KB of the bundle) for nothing.
 *
 * The command's signal (Ctrl-C, SIGTERM, a closed terminal's SIGHUP: src/cli.ts) ends a prompt
 * at once, as Ctrl-C does: a stopped svc must not sit at a question nobody answers. A terminal
 * that went away (lost-terminal.ts) ends it too, without a stack trace: 130, nothing changed.
 */
export function inquirerPrompter(
  input: Readable,
  output: Writable,
  /** svc's colour decision for `output` (IOStreams colorStderr); the command's signal. */
  options: { color: boolean; signal?: AbortSignal },
): Prompter {
  const theme = promptTheme(options.color);
  guardRawMode(input);
  const guard = async <T>(ask: (context: object) => Promise<T>): Promise<T> => {
    const stopped = options.signal;
    if (stopped?.aborted) throw new InterruptedError('stopped before the prompt; nothing was changed');
    const ended = new AbortController();
    const onStop = () => ended.abort();
    stopped?.addEventListener('abort', onStop, { once: true });
    let settled = false;
    let resumedHere = false;
    const onContinue = () =>
      setImmediate(() => {
        if (settled || !input.isPaused()) return;
        resumedHere = true;
        input.resume();
      });
    // After a SIGCONT's resume (queued first) has run: still paused is a closed readline.
    const onPause = () =>
      setImmediate(() => {
        if (!settled && input.isPaused()) ended.abort();
      });
    process.on('SIGCONT', onContinue);
    input.on('pause', onPause);
    try {
      return await ask({ input, output, clearPromptOnDone: false, signal: ended.signal });
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === 'AbortPromptError' && ended.signal.aborted) {
        if (terminalGone(input))
          throw new InterruptedError('the terminal went away at the prompt; nothing was changed');
        if (stopped?.aborted) throw new InterruptedError('stopped at the prompt; nothing was changed');
        throw new InterruptedError('cancelled at the prompt (end of input)');
      }
      if (name === 'ExitPromptError' || name === 'AbortPromptError') {
        throw new InterruptedError('cancelled at the prompt');
      }
      throw error;
    } finally {
      settled = true;
      stopped?.removeEventListener('abort', onStop);
      process.removeListener('SIGCONT', onContinue);
      input.removeListener('pause', onPause);
      // readline's close() leaves an input it thinks paused flowing: it would hold the loop.
      if (resumedHere) input.pause();
    }
  };
  return {
    input: (message, options = {}) =>
      guard(async (context) => {
        const { default: ask } = await import('@inquirer/input');
        const { default: raw, validate } = options;
        const fallback = raw === undefined ? undefined : shown(raw);
        const answer = await ask(
          {
            message: shown(message),
            theme,
            ...(fallback === undefined ? {} : { default: fallback }),
            ...(validate
              ? {
                  validate: (value: string) => {
                    const verdict = validate(value === fallback ? raw! : value);
                    return verdict === true ? true : shown(verdict);
                  },
                }
              : {}),
          },
          context,
        );
        // The default is shown escaped; taken as it is, it is the caller's value.
        return answer === fallback ? raw! : answer;
      }),
    password: (message) =>
      guard(async (context) => {
        const { default: password } = await import('@inquirer/password');
        return password({ message: shown(message), mask: '*', theme }, context);
      }),
    confirm: (message, defaultValue = false) =>
      guard(async (context) => {
        const { default: confirm } = await import('@inquirer/confirm');
        // Inquirer draws one prefix for every answer: the transformer (called with the answer
        // before the answered line is drawn) picks the mark, a ✓ only for a Yes (promptTheme).
        let said: boolean | undefined;
        const prefix = {
          idle: theme.prefix.idle,
          get done() {
            return said === false ? theme.declined : theme.prefix.done;
          },
        };
        const transformer = (answer: boolean) => {
          said = answer;
          return answer ? 'Yes' : 'No';
        };
        return confirm(
          { message: shown(message), default: defaultValue, transformer, theme: { ...theme, prefix } },
          context,
        );
      }),
    select: (message, choices) =>
      guard(async (context) => {
        const { default: select } = await import('@inquirer/select');
        return select(
          {
            message: shown(message),
            choices: choices.map(({ name, value, description }) => ({
              name: shown(name),
              value,
              ...(description === undefined ? {} : { description: shown(description) }),
            })),
            pageSize: 12,
            theme,
          },
          context,
        );
      }),
  };
}

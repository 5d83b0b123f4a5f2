import { Chalk } from 'chalk';
import { sym } from '../output/symbols.js';

/**
 * Inquirer's look, coloured by svc's decision (src/output/io.ts colorEnabled: --no-color,
 * NO_COLOR, FORCE_COLOR, TERM=dumb, a terminal or not). Inquirer's own colour library decides
 * from the environment when it loads and never hears of --no-color, so every part of its default
 * theme that carries colour is given here: the same styles, through a chalk of svc's level.
 */
export function promptTheme(color: boolean) {
  const c = new Chalk({ level: color ? 1 : 0 });
  // An answered question is re-printed with a tick; where the locale cannot show one, its ASCII
  // stand-in "ok" would read as a yes before a "No": the question mark stays instead.
  const answered = sym.check === '✓' ? '✓' : '?';
  return {
    prefix: { idle: c.blue('?'), done: c.green(answered) },
    /**
     * The mark of a confirmation answered No: the question's own `?`, never the ✓ — at 80 columns
     * a long question wraps and its first line, a green ✓ before "Revoke … from usr_lead", read
     * as done (attack22b F4). Only a Yes gets the tick.
     */
    declined: c.blue('?'),
    spinner: {
      interval: 80,
      frames: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'].map((frame) => c.yellow(frame)),
    },
    style: {
      answer: (text: string) => c.cyan(text),
      message: (text: string) => c.bold(text),
      error: (text: string) => c.red(`> ${text}`),
      defaultAnswer: (text: string) => c.dim(`(${text})`),
      help: (text: string) => c.dim(text),
      highlight: (text: string) => c.cyan(text),
      key: (text: string) => c.cyan(c.bold(`<${text}>`)),
      // The picker's own (@inquirer/select).
      disabled: (text: string) => c.dim(`- ${text}`),
      description: (text: string) => c.cyan(text),
      keysHelpTip: (keys: Array<[string, string]>) =>
        keys.map(([key, action]) => `${c.bold(key)} ${c.dim(action)}`).join(c.dim(' • ')),
    },
  };
}

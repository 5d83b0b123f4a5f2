/**
 * What the completion scripts `svc completion` writes today pass to `svc __complete` (as
 * `--protocol 2`): they quote each value for the shell themselves (bash with printf %q, zsh with
 * compadd, fish takes it as it is), so any one-line value may be offered to them. A caller
 * without it is a script written before (installed once in a file, kept after an upgrade), which
 * hands the values to `compgen -W`: it gets only the values no shell expands (see
 * src/commands/completion/dynamic.ts).
 */
export const COMPLETE_PROTOCOL = '2';

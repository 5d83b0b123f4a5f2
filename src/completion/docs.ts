import type { Command } from 'commander';

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.configureHelp({ showGlobalOptions: false, sortSubcommands: false, helpWidth: 100 });
  command.outputHelp();
  return text.trimEnd();
}

function walk(command: Command, path: string[]): Array<{ path: string[]; command: Command }> {
  const children = command.commands.filter(
    (c) => c.name() !== 'help' && !(c as unknown as { _hidden?: boolean })._hidden,
  );
  return [{ path, command }, ...children.flatMap((c) => walk(c, [...path, c.name()]))];
}

/** docs/cli.md: every command's help, generated from the command tree. */
export function cliReference(program: Command): string {
  const entries = walk(program, ['svc']);
  const anchor = (path: string[]) => path.join('-');
  const lines = [
    '# svc command reference',
    '',
    'Generated from the command tree by `npm run generate`; a test fails when it is stale. The same',
    'text is `svc COMMAND --help`. Global options (listed under `svc`) work with every command.',
    '',
    ...entries
      .slice(1)
      .map((e) => `${'  '.repeat(e.path.length - 2)}- [${e.path.join(' ')}](#${anchor(e.path)})`),
    '',
  ];
  for (const { path, command } of entries) {
    lines.push(
      `<a id="${anchor(path)}"></a>`,
      '',
      `## ${path.join(' ')}`,
      '',
      '```text',
      helpOf(command),
      '```',
      '',
    );
  }
  return lines.join('\n');
}

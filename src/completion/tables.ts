import { CONTEXT_OPTIONS, type CommandSpec, flatten } from './model.js';

/**
 * The facts every shell script needs, keyed by command path ("svc" is svc itself, whose
 * options are global and valid after any command; "svc tenants ls" a subcommand): subcommands, aliases, options, which options take a
 * value, option values, and what each positional argument completes from.
 */
export interface Tables {
  paths: string[];
  subcommands: Map<string, Array<{ name: string; description: string }>>;
  aliases: Map<string, string>;
  options: Map<string, Array<{ name: string; description: string }>>;
  valueOptions: Map<string, string[]>;
  optionValues: Map<string, string[]>;
  optionDynamic: Map<string, string>;
  argumentValues: Map<string, string[]>;
  argumentDynamic: Map<string, string>;
  variadicFrom: Map<string, number>;
  /** svc's own options that say where a command acts (CONTEXT_OPTIONS), as the scripts pass them on. */
  contextOptions: string[];
}

export const key = (path: string, item: string | number) => `${path}|${item}`;

export const ROOT = 'svc';

export function pathKey(words: string[]): string {
  return [ROOT, ...words].join(' ');
}

export function tables(root: CommandSpec): Tables {
  const t: Tables = {
    paths: [],
    subcommands: new Map(),
    aliases: new Map(),
    options: new Map(),
    valueOptions: new Map(),
    optionValues: new Map(),
    optionDynamic: new Map(),
    argumentValues: new Map(),
    argumentDynamic: new Map(),
    variadicFrom: new Map(),
    contextOptions: root.options.flatMap((o) => o.names).filter((name) => CONTEXT_OPTIONS.includes(name)),
  };
  for (const spec of flatten(root)) {
    const path = pathKey(spec.path);
    t.paths.push(path);
    if (spec.subcommands.length > 0) {
      t.subcommands.set(
        path,
        spec.subcommands.map((s) => ({ name: s.names[0]!, description: s.description })),
      );
      for (const sub of spec.subcommands)
        for (const alias of sub.names) t.aliases.set(key(path, alias), sub.names[0]!);
    }
    t.options.set(
      path,
      spec.options.flatMap((o) => o.names.map((name) => ({ name, description: o.description }))),
    );
    t.valueOptions.set(
      path,
      spec.options.filter((o) => o.takesValue).flatMap((o) => o.names),
    );
    for (const o of spec.options) {
      for (const name of o.names) {
        if (o.values.length > 0) t.optionValues.set(key(path, name), o.values);
        if (o.dynamic) t.optionDynamic.set(key(path, name), o.dynamic);
      }
    }
    spec.args.forEach((a, i) => {
      if (a.values.length > 0) t.argumentValues.set(key(path, i), a.values);
      if (a.dynamic) t.argumentDynamic.set(key(path, i), a.dynamic);
      if (a.variadic) t.variadicFrom.set(path, i);
    });
  }
  return t;
}

/** A single-quoted word for fish (where \\ and \\' are escapes inside single quotes). */
export function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The tables as [shell variable, entries] pairs, in the order both bash and zsh declare them. */
export function shellTables(
  t: Tables,
  describe: (name: string, description: string) => string,
): Array<[string, Array<[string, string]>]> {
  return [
    [
      '__svc_subs',
      [...t.subcommands].map(([p, subs]) => [p, subs.map((s) => describe(s.name, s.description)).join('\n')]),
    ],
    ['__svc_alias', [...t.aliases]],
    [
      '__svc_opts',
      [...t.options].map(([p, o]) => [p, o.map((x) => describe(x.name, x.description)).join('\n')]),
    ],
    ['__svc_valopts', [...t.valueOptions].map(([p, o]) => [p, ` ${o.join(' ')} `])],
    ['__svc_optvals', [...t.optionValues].map(([k, v]) => [k, v.join(' ')])],
    ['__svc_optdyn', [...t.optionDynamic]],
    ['__svc_argvals', [...t.argumentValues].map(([k, v]) => [k, v.join(' ')])],
    ['__svc_argdyn', [...t.argumentDynamic]],
    ['__svc_variadic', [...t.variadicFrom].map(([p, i]) => [p, String(i)])],
    ['__svc_context', [[ROOT, ` ${t.contextOptions.join(' ')} `]]],
  ];
}

/**
 * The word walk shared by the bash and zsh scripts (same syntax in both): skips options and
 * the values of options that take one, follows subcommands and aliases, and counts positional
 * arguments. Leaves `cmdpath`, `pending` (an option waiting for its value), `position`, and
 * `globals`: the options of `__svc_context` on the line, with their values, for `svc __complete`.
 * Bash splits a word at `=`, `:` and `@` (COMP_WORDBREAKS; a run of them is a word of its own):
 * `--tenant=x`, `http://h:1` and `u@h` are made whole again. Each
 * word is read as the shell will pass it (`__svc_unquote`: "acme-labs" is acme-labs), and a short
 * option with its value attached (`-ptwo`) is one option with its value, as commander reads it.
 * zsh (no `split`) does not split words; its walk stops before the word being completed, `end`,
 * and `--tenant=` just before it waits for its value like `--tenant`. Bash's (`split`) walks on to
 * the word being completed, joins its pieces too, and stops there with it, as typed, in `word`.
 */
export function shellWalk(
  word: (index: string) => string,
  first: number,
  end: string,
  split = false,
): string {
  const breaks = split ? '=:@' : '=:';
  return `  local cmdpath=svc word canonical pending='' position=0 i joined REPLY
  local -a globals=()
  for ((i = ${first}; i ${split ? '<=' : '<'} ${end}; i++)); do
    word=${word('i')} joined=''${
      split
        ? `
    if [[ $word == +([${breaks}]) ]]; then joined=1; fi`
        : ''
    }
    while ((i ${split ? '<' : '+ 1 <'} ${end})); do
      if [[ ${word('i + 1')} == ${split ? `+([${breaks}])` : `[${breaks}]`} ]]; then joined=1
      elif [[ -z $joined || $word != *[${breaks}] ]]; then break
      else joined=''
      fi
      word+=${word('i + 1')}
      ((i++))
    done${
      split
        ? `
    if ((i == ${end})); then break; fi`
        : ''
    }
    __svc_unquote "$word"
    word=$REPLY
    if [[ -n $pending ]]; then
      if [[ \${__svc_context[svc]} == *" $pending "* ]]; then globals+=("$pending" "$word"); fi
      pending=''
      continue
    fi
    if [[ $word == -* ]]; then
${
  split
    ? ''
    : `      if [[ $word == *= && $((i + 1)) -eq ${end} ]]; then word=\${word%=}; fi
`
}      if [[ $word == *=* ]]; then
        if [[ \${__svc_context[svc]} == *" \${word%%=*} "* ]]; then globals+=("$word"); fi
      elif [[ $word != --* && \${#word} -gt 2 && ( \${__svc_valopts[$cmdpath]} == *" \${word:0:2} "* || \${__svc_valopts[svc]} == *" \${word:0:2} "* ) ]]; then
        # A short option with its value attached (-ptwo), as commander reads it.
        if [[ \${__svc_context[svc]} == *" \${word:0:2} "* ]]; then globals+=("$word"); fi
      elif [[ \${__svc_valopts[$cmdpath]} == *" $word "* || \${__svc_valopts[svc]} == *" $word "* ]]; then pending=$word
      elif [[ \${__svc_context[svc]} == *" $word "* ]]; then globals+=("$word")
      fi
      continue
    fi
    canonical=\${__svc_alias[$cmdpath|$word]}
    if [[ -n $canonical ]]; then cmdpath="$cmdpath $canonical"; position=0; else position=$((position + 1)); fi
  done`;
}

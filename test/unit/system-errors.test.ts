// A system error no command worded (attack21 F3: EMFILE in a bulk run's cleanup): the machine's,
// named with its call, path and fix, exit 1 — never "this is a bug in svc".
import { describe, expect, it } from 'vitest';
import { errorReport, renderError } from '../../src/output/errors.js';
import { inCommand, withConcurrency } from '../../src/system/command-scope.js';
import { openFilesLimit, systemErrorWords } from '../../src/system/system-errors.js';

const systemError = (code: string, words: string, syscall: string, path?: string) =>
  Object.assign(new Error(`${code}: ${words}, ${syscall}${path ? ` '${path}'` : ''}`), {
    code,
    syscall,
    ...(path ? { path } : {}),
  });

describe('a system error that reached the top', () => {
  it('EMFILE: the limit and the fix, exit 1, not a bug in svc', () => {
    const error = systemError('EMFILE', 'too many open files', 'scandir', '/tmp/svc-input-f15UPA');
    const limit = openFilesLimit();
    expect(errorReport(error)).toEqual({
      code: 'system_error',
      message: `the system refused scandir of /tmp/svc-input-f15UPA: too many open files (${limit === undefined ? 'this process’s limit, ulimit -n' : `ulimit -n ${limit}`}): raise the limit`,
      exit_code: 1,
    });
    expect(renderError(error, { json: false, debug: false })).not.toContain('bug in svc');
  });

  // review21c F7: "lower --concurrency" was said by every command; only a bulk command has it.
  it('in a bulk command (it has --concurrency), and only there: lower --concurrency', async () => {
    const emfile = systemError('EMFILE', 'too many open files', 'open', '/c/credentials.json');
    const enfile = systemError('ENFILE', 'file table overflow', 'open', '/c/credentials.json');
    const words = () => [systemErrorWords(emfile).replace(/ \(.*\)/, ''), systemErrorWords(enfile)];
    expect(await withConcurrency(async () => words())).toEqual([
      'too many open files: lower --concurrency or raise the limit',
      "too many open files on this system (the kernel's limit, not this process's): lower --concurrency or raise fs.file-max",
    ]);
    expect(inCommand(words)).toEqual([
      'too many open files: raise the limit',
      "too many open files on this system (the kernel's limit, not this process's): raise fs.file-max",
    ]);
  });

  it('ENOSPC and EROFS: the words and what to do', () => {
    expect(
      renderError(systemError('ENOSPC', 'no space left on device', 'write'), { json: false, debug: false }),
    ).toBe(
      'error: the system refused write: no space left on device; make room on that disk, then run the command again\n',
    );
    expect(errorReport(systemError('EROFS', 'read-only file system', 'open', '/ro/x'))).toMatchObject({
      code: 'system_error',
      message: 'the system refused open of /ro/x: read-only file system',
      hint: 'that disk is read-only: point the directory svc uses there (TMPDIR, SVC_STATE_DIR, SVC_CONFIG_DIR) at a writable one',
    });
  });

  it('anything else is still unexpected', () => {
    expect(errorReport(new TypeError('x is not a function'))).toMatchObject({ code: 'unexpected' });
    expect(errorReport(Object.assign(new Error('odd'), { code: 'ERR_SOMETHING' }))).toMatchObject({
      code: 'unexpected',
    });
  });
});

describe('the config store read out of file descriptors', () => {
  it('says the limit, not EMFILE', () => {
    expect(
      systemErrorWords(systemError('EMFILE', 'too many open files', 'open', '/c/credentials.json')),
    ).toMatch(/^too many open files \((ulimit -n \d+|this process’s limit, ulimit -n)\): raise the limit$/);
    expect(systemErrorWords(systemError('EACCES', 'permission denied', 'open', '/c/x'))).toBe(
      "EACCES: permission denied, open '/c/x'",
    );
  });
});

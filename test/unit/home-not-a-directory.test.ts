// HOME a device or a file (a service account's HOME=/dev/null, a cron or systemd job's: attack21
// F1): the directories svc would make under it are not judged by the device's or file's mode (it
// advised `chmod go-w /dev/null`, which, run as root, breaks every program that writes there).
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refuseSharedJournals } from '../../src/bulk/journal-path.js';
import { unsafeParent } from '../../src/config/ownership.js';
import { ConfigStore } from '../../src/config/store.js';
import { useTempDir } from '../helpers/temp.js';

/** The test's own temporary directory, removed after it. */
const BASE = useTempDir('svc-odd-unit-');
afterAll(() => rmSync(BASE, { recursive: true, force: true }));

const devNull = existsSync('/dev/null') && process.platform !== 'win32';

function fileOthersCanWrite(): string {
  const file = join(mkdtempSync(join(BASE, 'home-')), 'home');
  writeFileSync(file, 'x');
  chmodSync(file, 0o666);
  return file;
}

describe('a journals directory under something that is not a directory', () => {
  it.skipIf(!devNull)('/dev/null (0666, a device): not refused for its mode; nothing there is judged', () => {
    expect(unsafeParent('/dev/null/.local/state/svc')).toBeUndefined();
    expect(() => refuseSharedJournals('/dev/null/.local/state/svc/journals')).not.toThrow();
  });

  it('a file others can write (0666): not refused with a chmod of it', () => {
    const home = fileOthersCanWrite();
    expect(unsafeParent(join(home, '.local', 'state', 'svc'))).toBeUndefined();
    expect(() => refuseSharedJournals(join(home, '.local', 'state', 'svc', 'journals'))).not.toThrow();
  });
});

describe('a config store under something that is not a directory', () => {
  it.skipIf(!devNull)('reads as empty (nothing is there), as a missing one does', () => {
    const store = new ConfigStore('/dev/null/.config/svc');
    expect(store.profiles()).toEqual({});
  });
});

import { readFileSync, readlinkSync } from 'node:fs';

/** The user this process runs as (undefined on Windows). */
export const uid = (): number | undefined =>
  typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Whether process `pid` still runs: signal 0 checks without sending anything. EPERM means it runs
 * as another user; only ESRCH says it is gone. The callers decide what their own pid means.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * A process as svc writes it down (a journal's lock, bulk/lock.ts; the record of a secret file in
 * flight, system/secret-file.ts) for another svc process to judge later. A pid names a process
 * only within one PID namespace and one boot: two containers sharing a state directory (one host
 * name, svc as PID 1 in each) have the same pids for different processes, and after a reboot a
 * killed run's pid belongs to whatever started next (attack21 F10, F7). So the mark also holds,
 * on Linux, the boot (`/proc/sys/kernel/random/boot_id`), the PID namespace (`readlink
 * /proc/self/ns/pid`) and the process's start (`/proc/PID/stat` field 22, clock ticks since
 * boot): with them a pid that runs is the marked process exactly, or it is not. Elsewhere (no
 * /proc: macOS) there are no PID namespaces and the pid is judged alone.
 */
export interface ProcessMark {
  pid: number;
  boot?: string;
  pidns?: string;
  start?: string;
}

/**
 * What judgeMark says of a mark: whether its process runs, and whether that is sure (`sure:
 * false`: a pid that runs, judged by its pid alone, may be another program that got it), or that
 * a pid cannot tell (`runs: undefined`): a mark of another PID namespace (another container) or of
 * another boot (this machine before a reboot, or another machine of the same name) — then only
 * something the holder keeps refreshing, or a human, can.
 */
export type Judged = { runs: boolean; sure: boolean } | { runs: undefined; why: 'namespace' | 'boot' };

function readTrimmed(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

let procOurs: boolean | undefined;
/**
 * Whether /proc shows this PID namespace's pids: a process put in a namespace of its own without a
 * /proc of its own (`unshare -p -f` without --mount-proc) sees its parent namespace's there, where
 * pid N is another process than kill(N) reaches. Then no start is read (pids are judged alone).
 */
function procIsOurs(): boolean {
  procOurs ??=
    readTrimmed(() => readFileSync('/proc/self/stat', 'utf8'))?.split(' ')[0] === String(process.pid);
  return procOurs;
}

/** `/proc/PID/stat` field 22 (after the parenthesised command, which may hold spaces and parentheses). */
function startTicks(pid: number | 'self'): string | undefined {
  if (!procIsOurs()) return undefined;
  const stat = readTrimmed(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields?.[19];
  return ticks && /^\d+$/.test(ticks) ? ticks : undefined;
}

let bootSeconds: number | undefined;
/** When process `pid` started (ms since the epoch, to about a second), from its ticks and the boot time. */
function startedAtMs(pid: number | 'self'): number | undefined {
  const ticks = startTicks(pid);
  bootSeconds ??= Number(
    /^btime (\d+)$/m.exec(readTrimmed(() => readFileSync('/proc/stat', 'utf8')) ?? '')?.[1],
  );
  // USER_HZ is 100 on every Linux svc runs on (the kernel's ABI for /proc, whatever HZ it was built with).
  return ticks === undefined || !bootSeconds ? undefined : (bootSeconds + Number(ticks) / 100) * 1000;
}

let self: ProcessMark | undefined;
/** This process's mark (read once: none of it changes while a process runs). */
export function thisProcess(): ProcessMark {
  self ??= {
    pid: process.pid,
    boot: readTrimmed(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidns: readTrimmed(() => readlinkSync('/proc/self/ns/pid')),
    start: startTicks('self'),
  };
  return { ...self };
}

/**
 * Whether the process of `mark` still runs: the one rule of every svc file that names its holder
 * by pid. `ours` says whether this process holds the thing now (a mark of this very process that
 * it no longer holds is past); `sinceMs`, when the mark was written (an older svc's mark, without
 * a start: a process that started after it is not its writer, and our own pid in it is a past
 * process's only if it was written before this process started).
 */
export function judgeMark(mark: ProcessMark, ours: boolean, sinceMs?: number): Judged {
  const me = thisProcess();
  if (mark.boot !== undefined && me.boot !== undefined && mark.boot !== me.boot)
    return { runs: undefined, why: 'boot' };
  // A mark of this namespace, or an older svc's (no namespace: judged by its pid, as that svc did).
  if (mark.pidns !== undefined && mark.pidns !== me.pidns) return { runs: undefined, why: 'namespace' };
  const exact = mark.pidns !== undefined && mark.start !== undefined;
  if (mark.pid === me.pid) {
    if (exact) return { runs: ours && mark.start === me.start, sure: true };
    const started = startedAtMs('self');
    // Written after this process started, by another with its pid: an older svc in another container.
    const later =
      sinceMs !== undefined && started !== undefined && sinceMs >= Math.floor(started / 1000) * 1000;
    return ours ? { runs: true, sure: true } : { runs: later, sure: !later };
  }
  if (!processRuns(mark.pid)) return { runs: false, sure: true };
  if (exact) {
    const ticks = startTicks(mark.pid);
    if (ticks !== undefined) return { runs: ticks === mark.start, sure: true };
    return { runs: true, sure: false };
  }
  // An older svc's mark: a process that started clearly after it was written is not its writer.
  const started = startedAtMs(mark.pid);
  if (sinceMs !== undefined && started !== undefined && started > sinceMs + 2000)
    return { runs: false, sure: true };
  return { runs: true, sure: false };
}

/**
 * A mark in a few characters of a file's name (the temp files of a write, system/output-file.ts),
 * where a file's contents are what is being written: `PID-START-BOOT-NS` — the start's clock
 * ticks, the first 12 hex digits of the boot id (48 random bits: two boots alike by chance are
 * not a concern), the PID namespace's inode — each `x` where it is not known (no /proc: macOS).
 */
export function markWord(mark: ProcessMark = thisProcess()): string {
  const boot = mark.boot?.replaceAll('-', '').slice(0, 12);
  const pidns = /^pid:\[(\d+)\]$/.exec(mark.pidns ?? '')?.[1];
  return [mark.pid, mark.start ?? 'x', boot && /^[0-9a-f]{12}$/.test(boot) ? boot : 'x', pidns ?? 'x'].join(
    '-',
  );
}

/** The pattern of markWord's word (a source of a larger pattern: no anchors, no groups). */
export const MARK_WORD = String.raw`\d+-(?:\d+|x)-(?:[0-9a-f]{12}|x)-(?:\d+|x)`;

/**
 * The mark markWord wrote, for judgeMark: its boot is this one's when its 12 digits are this
 * boot's, and another (never equal to this one) when they are not. Undefined if it is no such word.
 */
export function markOfWord(word: string): ProcessMark | undefined {
  const parts = new RegExp(`^${MARK_WORD}$`).test(word) ? word.split('-') : undefined;
  const pid = Number(parts?.[0]);
  if (parts === undefined || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const [, start, boot, pidns] = parts;
  const me = thisProcess();
  const mark: ProcessMark = { pid };
  if (start !== 'x') mark.start = start;
  if (boot !== undefined && boot !== 'x')
    mark.boot = me.boot?.replaceAll('-', '').startsWith(boot) ? me.boot : `boot ${boot}`;
  if (pidns !== 'x') mark.pidns = `pid:[${pidns}]`;
  return mark;
}

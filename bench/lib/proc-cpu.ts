import fs from 'node:fs';

/** The kernel's clock ticks a second, in which /proc/PID/stat counts CPU time (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A process's CPU so far, user + system, in seconds, from /proc/PID/stat: read without waking the
 * process. Undefined where /proc is not (or the process is gone).
 */
export function procCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const { user, system } = userAndSystem(`/proc/${pid}/stat`);
    return user + system;
  } catch {
    return undefined;
  }
}

/** User and system CPU seconds from a /proc stat file (a process's, or one of its threads'). */
function userAndSystem(statFile: string): { user: number; system: number } {
  const stat = fs.readFileSync(statFile, 'utf8');
  // The command name, in parentheses, may hold spaces: utime and stime are fields 14 and 15 of
  // the whole line, 12 and 13 after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

/** As procCpuSeconds, for a process that must be there: a bench that reads it cannot go on without. */
export function procCpuSecondsOf(pid: number): number {
  const seconds = procCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`no CPU time for process ${pid} (/proc/${pid}/stat)`);
  return seconds;
}

/** A process's CPU so far by kind and thread, seconds: user and system time of its main thread and of its other threads alive now. */
export interface CpuSplit {
  mainUser: number;
  mainSystem: number;
  otherUser: number;
  otherSystem: number;
}

/** From /proc/PID/task/TID/stat (a thread that ended is in procCpuSeconds only). Undefined where /proc is not. */
export function procCpuSplit(pid: number | undefined): CpuSplit | undefined {
  if (pid === undefined) return undefined;
  try {
    const split: CpuSplit = { mainUser: 0, mainSystem: 0, otherUser: 0, otherSystem: 0 };
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const { user, system } = userAndSystem(`/proc/${pid}/task/${tid}/stat`);
      if (tid === String(pid)) Object.assign(split, { mainUser: user, mainSystem: system });
      else Object.assign(split, { otherUser: split.otherUser + user, otherSystem: split.otherSystem + system });
    }
    return split;
  } catch {
    return undefined;
  }
}

/** A thread's time on the CPU and waiting for it while runnable, seconds (/proc/PID/schedstat: the kernel's nanoseconds). */
export interface SchedTimes {
  run: number;
  wait: number;
}

/**
 * The main thread's (the event loop's) time on the CPU and on the run queue so far: how long it
 * was ready to run and kept off its core by other work. Undefined where /proc has no schedstat.
 */
export function procSchedTimes(pid: number | undefined): SchedTimes | undefined {
  if (pid === undefined) return undefined;
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return undefined;
    return { run: run! / 1e9, wait: wait! / 1e9 };
  } catch {
    return undefined;
  }
}

// What the tests that bound a time share, so that they hold on a busy
// machine. What a call or a program does after its deadline or a signal is
// bounded in CPU time: the clock says nothing of it there (under a load of
// 30 on 2 cores, a call that stops at once still ends seconds late, waiting
// for a core), while a call that runs on burns CPU time however busy the
// machine is. A wait that only a cancel ends is bounded by the clock, at
// PROMPT_MS, well short of the timeout that would end it otherwise.
import fs from "node:fs";

// PROMPT_MS is how soon by the clock a wait must end that nothing but a
// cancel or a signal ends (a fetch never answered, a held reply): far more
// than a busy machine takes, far less than the calls' failsafe timeout
// (FAILSAFE_MS, conformance-case.js).
export const PROMPT_MS = 10_000;

// WAIT_MS is how long a test waits for one thing to happen (a page to show
// a text, a server to answer): a failsafe, far past what a busy machine
// takes (under a load of 30 on 2 cores the work takes 15 times as long); a
// test's own timeout is a few of them.
export const WAIT_MS = 120_000;

// cpuMs is the CPU time in ms, user and system, that process pid has used
// so far: this process's (all its threads) by default; another one's from
// /proc, on Linux alone, and null where it cannot be read.
export function cpuMs(pid = process.pid) {
  if (pid === process.pid) {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
  try {
    // The fields after the command's name, which may hold spaces: utime and
    // stime are the 14th and 15th, in clock ticks (USER_HZ, 100 on Linux).
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

// childrenCpuMs is the CPU time in ms that the processes under process
// root (this one by default) have used so far, root's own left out: a
// browser's and its renderers', say. From /proc, on Linux alone; null
// elsewhere. A process that ended is no longer counted.
export function childrenCpuMs(root = process.pid) {
  let pids;
  try {
    pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const parent = new Map();
  const cpu = new Map();
  for (const pid of pids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1).split(" ");
      parent.set(Number(pid), Number(f[1]));
      cpu.set(Number(pid), ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      // gone since the listing
    }
  }
  let total = 0;
  for (const [pid, ms] of cpu) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += ms;
        break;
      }
    }
  }
  return total;
}

// cpuPast measures what process pid uses from ms from now on: the function
// it gives returns the CPU time in ms used since then, 0 if that moment
// has not come, and the clock's time since it where the CPU time is not
// measured. For a process that ends, call it (or sample) before it does.
export function cpuPast(ms, pid = process.pid) {
  let mark = null;
  let markedAt = 0;
  const timer = setTimeout(() => {
    mark = cpuMs(pid);
    markedAt = Date.now();
  }, ms);
  return () => {
    clearTimeout(timer);
    if (markedAt === 0) return 0;
    const now = cpuMs(pid);
    return mark === null || now === null ? Date.now() - markedAt : now - mark;
  };
}

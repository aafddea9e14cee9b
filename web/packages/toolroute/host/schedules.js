// The scheduled_tasks group's tasks in a JS host: kept in its settings
// store (task.NAME, the task as JSON), checked and answered as the Go
// program's (internal/schedule), and run by a TaskTimer while the host runs:
//   schedules.list {}                                   -> [task], by name
//   schedules.create {name, prompt, at?, cron?, timezone?} -> task
//   schedules.update {name, prompt?, at?, cron?, timezone?, enabled?} -> task
//   schedules.run {name}                                -> task, with its run
//   schedules.remove {name}                             -> the task
// A task is {name, prompt, at?, cron?, timezone?, enabled, next_run?,
// created, runs, last_run?: {session, started, status, result}}, times UTC
// RFC 3339 to the second. cron is the standard 5 fields (minute hour
// day-of-month month day-of-week) or @daily, @hourly..., in timezone (an
// IANA name, UTC by default). The module reads at and cron (task_time);
// this host gives it the clock and its zones' offsets (Intl).

import { checked, checkName } from "./checks.js";

export const TASK_PREFIX = "task.";
export const MAX_RESULT_CHARS = 2000;
// MAX_SLEEP_MS bounds a TaskTimer's wait between looks at the tasks.
export const MAX_SLEEP_MS = 60_000;

// stamp is a time as a task holds it: UTC, to the second.
export function stamp(d) {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

// knownZone is whether this host's zone database (Intl's) has tz.
function knownZone(tz) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map();
// offsetAt is tz's offset from UTC at the Unix second s, in seconds, as
// Intl gives it.
function offsetAt(s, tz) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", era: "short" });
    formatters.set(tz, f);
  }
  const p = {};
  for (const { type, value } of f.formatToParts(new Date(s * 1000))) p[type] = type === "era" ? value : Number(value);
  const year = p.era === "BC" || p.era === "B" ? 1 - p.year : p.year;
  // Date.UTC reads years 0 to 99 as 1900 to 1999: 400 years later, less
  // their days, is the same calendar.
  return (Date.UTC(year + 400, p.month - 1, p.day, p.hour, p.minute, p.second) - 146097 * 86400000) / 1000 - s;
}

// zoneOffsets reads the offsets of the zone tz from from to to (Unix
// seconds) from Intl, as task_time takes them: the one in force at from,
// then each change, found day by day and to the second between.
export function zoneOffsets(tz, from, to) {
  if (!knownZone(tz)) return { known: false };
  const offsets = [{ from, offset: offsetAt(from, tz) }];
  let at = from;
  let off = offsets[0].offset;
  while (at < to) {
    const next = Math.min(at + 86400, to);
    if (offsetAt(next, tz) === off) {
      at = next;
      continue;
    }
    let [lo, hi] = [at, next]; // off at lo, another at hi
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetAt(mid, tz) === off) lo = mid;
      else hi = mid;
    }
    off = offsetAt(hi, tz);
    offsets.push({ from: hi, offset: off });
    at = hi;
  }
  return { known: true, from, to, offsets };
}

// readTime has the module read a task's time (wasm/ABI.md,
// toolroute_check's task_time) as the Go program's ReadTime: at, a new
// one-shot time ("" for none), must be after now; cron, the task's
// schedule ("" for none), gives its next run after now; both in the IANA
// zone tz ("" for UTC). The module has no tz database: when it asks for a
// zone's offsets, readTime reads them from Intl and asks again. It answers
// {at?, next_run?} (RFC 3339, UTC) and throws the module's refusal.
export async function readTime(check, at, cron, tz, now) {
  const args = { at, cron, timezone: tz, now: now.toISOString() };
  for (let i = 0; i < 3; i++) {
    // An answer of {} (a zone alone passes) has no args, where checked()
    // would give back those asked with.
    const got = await checked({ check }, "task_time", args);
    const a = got === args ? {} : got;
    if (!a.zone) return a;
    args.zone = zoneOffsets(tz, a.zone.from, a.zone.to);
  }
  throw new Error(`toolroute: the module asked three times for the offsets of ${JSON.stringify(tz)}`);
}

// nextRun is when task runs next after now, null if never, as the Go
// program's Task.Next: its at if that is after now, or its cron
// schedule's next time as the module reads it.
export async function nextRun(task, now, check) {
  if (!task.enabled) return null;
  if (task.cron) {
    try {
      const a = await readTime(check, "", task.cron, task.timezone ?? "", now);
      return a.next_run ? new Date(a.next_run) : null;
    } catch (e) {
      if (e?.type) return null; // refused: its zone left the database
      throw e;
    }
  }
  const at = Date.parse(task.at ?? "");
  return at > now.getTime() ? new Date(at) : null;
}

const given = (v) => v !== undefined && v !== null;

// checkChange asks the module whether c can be a task's creation or change
// whatever the tasks are (wasm/ABI.md, toolroute_check's task_change: the
// prompt, and at or cron), and gives c with its prompt, at and cron
// trimmed; scheduled says the task changed has a time already.
async function checkChange(ctx, c, create, scheduled) {
  const str = (v) => (given(v) ? String(v) : null);
  const a = await checked(ctx, "task_change", { prompt: str(c.prompt), at: str(c.at), cron: str(c.cron), create, scheduled });
  return { ...c, prompt: a.prompt ?? null, at: a.at, cron: a.cron };
}

// apply sets t's prompt and time from c, which checkChange checked, as
// the module reads them (readTime), as the Go program's.
async function apply(t, c, now, check) {
  if (given(c.prompt)) t.prompt = c.prompt;
  const at = c.at || "";
  const cron = at ? "" : c.cron || t.cron || "";
  if (given(c.timezone)) t.timezone = String(c.timezone).trim();
  if (!t.timezone) delete t.timezone;
  const a = await readTime(check, at, cron, t.timezone ?? "", now);
  if (at) {
    t.at = a.at;
    delete t.cron;
  } else if (cron) {
    t.cron = cron;
    delete t.at;
  }
  if (given(c.enabled)) t.enabled = c.enabled === true;
  let next = null;
  if (t.enabled) next = t.cron ? a.next_run || null : Date.parse(t.at ?? "") > now.getTime() ? t.at : null;
  if (next) t.next_run = next;
  else delete t.next_run;
  return t;
}

function parse(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

// Tasks keeps the tasks in store ({settings(), setSettings(patch)}, a null
// value deleting a key) and runs them with run(id, title, prompt) ->
// answer, which throws when the turn fails: a turn in the new session id
// with no one there to answer approval questions. check is the module's
// check (Host.check), which a due task's next run asks; now is the clock.
export class Tasks {
  #store;
  #run;
  #now;
  #changed;
  #check;
  #queue = Promise.resolve(); // orders the read-change-write of records

  constructor({ store, run, check, now = () => new Date(), changed = () => {} }) {
    this.#store = store;
    this.#check = check;
    this.#run = run;
    this.#now = now;
    this.#changed = changed;
  }

  // #locked runs f after the changes before it.
  #locked(f) {
    const p = this.#queue.then(f);
    this.#queue = p.catch(() => {});
    return p;
  }

  async list() {
    const s = await this.#store.settings();
    return Object.keys(s).filter((k) => k.startsWith(TASK_PREFIX)).sort().map((k) => parse(s[k])).filter(Boolean);
  }

  async #get(name) {
    return parse((await this.#store.settings())[TASK_PREFIX + name] ?? "");
  }

  #put(t) {
    return this.#store.setSettings({ [TASK_PREFIX + t.name]: JSON.stringify(t) });
  }

  // #named is the task of that name, or throws the module's not_found
  // refusal naming those there are.
  async #named(name, ctx) {
    const t = await this.#get(name);
    if (t) return t;
    await this.#checkNames(name, false, ctx);
    throw new Error(`toolroute: task ${JSON.stringify(name)} is listed but has no record`);
  }

  // #checkNames gives the module name and the names of the tasks there
  // are to check (task_names), as the Go program's checkNames.
  async #checkNames(name, create, ctx) {
    const names = (await this.list()).map((x) => x.name);
    await checked(ctx?.check ? ctx : { check: this.#check }, "task_names", { name, names, create });
  }

  create(c, ctx) {
    return this.#locked(async () => {
      const name = String(c?.name ?? "");
      await checkName(ctx, "task_name", name);
      c = await checkChange(ctx, c, true, false);
      await this.#checkNames(name, true, ctx);
      const now = this.#now();
      const t = await apply({ name, prompt: "", enabled: true, created: stamp(now), runs: 0 }, c, now, (op, args) => ctx.check(op, args));
      await this.#put(t);
      this.#changed();
      return t;
    });
  }

  update(c, ctx) {
    return this.#locked(async () => {
      const t = await this.#named(String(c?.name ?? ""), ctx);
      await apply(t, await checkChange(ctx, c, false, Boolean(t.at || t.cron)), this.#now(), (op, args) => ctx.check(op, args));
      await this.#put(t);
      this.#changed();
      return t;
    });
  }

  remove(name, ctx) {
    return this.#locked(async () => {
      const t = await this.#named(String(name ?? ""), ctx);
      await this.#store.setSettings({ [TASK_PREFIX + t.name]: null });
      this.#changed();
      return t;
    });
  }

  // #start records that t runs now in a new session; a due task advances
  // to its next time first, so that a run that dies is not repeated.
  async #start(t, due) {
    const now = this.#now();
    const run = { session: `task-${t.name}-${stamp(now).replace(/[-:]/g, "").replace("T", "-").replace("Z", "")}`, started: stamp(now), status: "running", result: "" };
    if (due) {
      const next = await nextRun(t, now, this.#check);
      if (next) t.next_run = stamp(next);
      else delete t.next_run;
    }
    t.runs = (t.runs ?? 0) + 1;
    t.last_run = run;
    await this.#put(t);
    return run;
  }

  async #finish(t, run) {
    try {
      run.status = "done";
      run.result = String(await this.#run(run.session, `Scheduled task: ${t.name}`, t.prompt));
    } catch (e) {
      run.status = "failed";
      run.result = String(e?.message ?? e);
    }
    const chars = [...run.result];
    if (chars.length > MAX_RESULT_CHARS) run.result = chars.slice(0, MAX_RESULT_CHARS).join("") + " [cut: the session has it all]";
    return this.#locked(async () => {
      const now = await this.#get(t.name);
      if (!now) return { ...t, last_run: run }; // deleted while it ran
      if (!now.last_run || now.last_run.session === run.session) {
        now.last_run = run;
        await this.#put(now);
      }
      this.#changed();
      return now;
    });
  }

  // runNow runs a task at once, whatever its schedule, which it keeps.
  async runNow(name, ctx) {
    const [t, run] = await this.#locked(async () => {
      const t = await this.#named(String(name ?? ""), ctx);
      return [t, await this.#start(t, false)];
    });
    return this.#finish(t, run);
  }

  // runDue runs the tasks due now, the earliest first, one after another,
  // and says how many ran.
  async runDue() {
    const now = this.#now().getTime();
    const due = (await this.list())
      .filter((t) => t.next_run && Date.parse(t.next_run) <= now)
      .sort((a, b) => (a.next_run < b.next_run ? -1 : a.next_run > b.next_run ? 1 : a.name < b.name ? -1 : 1));
    let ran = 0;
    for (const d of due) {
      const started = await this.#locked(async () => {
        const t = await this.#get(d.name);
        if (!t || !t.next_run || Date.parse(t.next_run) > now) return null;
        return [t, await this.#start(t, true)];
      });
      if (!started) continue;
      await this.#finish(...started);
      ran++;
    }
    return ran;
  }

  // nextRun is the earliest next run of any task, or null.
  async nextRun() {
    const times = (await this.list()).map((t) => t.next_run).filter(Boolean).sort();
    return times.length ? new Date(times[0]) : null;
  }

  // ops are the toolroute bridge's schedules.* operations.
  ops() {
    return {
      "schedules.list": async () => this.list(),
      "schedules.create": async (args, ctx) => this.create(args ?? {}, ctx),
      "schedules.update": async (args, ctx) => this.update(args ?? {}, ctx),
      "schedules.run": async (args, ctx) => this.runNow(args?.name, ctx),
      "schedules.remove": async (args, ctx) => this.remove(args?.name, ctx),
    };
  }
}

// TaskTimer runs tasks' due runs while it is started: in a page, while the
// page is open. timers are {setTimeout, clearTimeout}, the global ones by
// default; a test gives fake ones. Errors go to log.
export class TaskTimer {
  #tasks;
  #timers;
  #now;
  #log;
  #handle = null;
  #running = false;
  #stopped = true;
  #again = false;

  constructor(tasks, { now = () => new Date(), timers = globalThis, log = (e) => console.warn("scheduled tasks:", e) } = {}) {
    this.#tasks = tasks;
    this.#now = now;
    this.#timers = timers;
    this.#log = log;
  }

  start() {
    this.#stopped = false;
    this.wake();
  }

  stop() {
    this.#stopped = true;
    if (this.#handle !== null) this.#timers.clearTimeout(this.#handle);
    this.#handle = null;
  }

  // wake looks at the tasks now: one was added or changed.
  wake() {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#handle !== null) this.#timers.clearTimeout(this.#handle);
    this.#handle = null;
    this.#tick();
  }

  async #tick() {
    this.#running = true;
    try {
      await this.#tasks.runDue();
    } catch (e) {
      this.#log(e);
    }
    let wait = MAX_SLEEP_MS;
    try {
      const next = await this.#tasks.nextRun();
      if (next) wait = Math.min(Math.max(next.getTime() - this.#now().getTime(), 0), MAX_SLEEP_MS);
    } catch (e) {
      this.#log(e);
    }
    this.#running = false;
    if (this.#stopped) return;
    if (this.#again) {
      this.#again = false;
      wait = 0;
    }
    this.#handle = this.#timers.setTimeout(() => {
      this.#handle = null;
      this.#tick();
    }, wait);
  }
}

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
// IANA name, UTC by default), read by the small parser below.

import { checked, checkName } from "./checks.js";

export const TASK_PREFIX = "task.";
export const MAX_RESULT_CHARS = 2000;
export const MAX_TASKS = 100;
// MAX_SLEEP_MS bounds a TaskTimer's wait between looks at the tasks.
export const MAX_SLEEP_MS = 60_000;

function toolError(type, message) {
  return Object.assign(new Error(message), { type });
}
const invalid = (m) => toolError("invalid_arguments", m);
const notFound = (m) => toolError("not_found", m);
const q = (s) => JSON.stringify(String(s));

// stamp is a time as a task holds it: UTC, to the second.
export function stamp(d) {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

// zone checks an IANA time zone, "" (UTC) included.
function zone(tz) {
  if (tz === "" || tz === "UTC") return "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw invalid(`timezone ${q(tz)} is not an IANA time zone: give one such as Europe/Paris or America/New_York, or leave it out for UTC`);
  }
}

const formatters = new Map();
// wall gives the wall-clock parts of the instant ms in tz.
function wall(ms, tz) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formatters.set(tz, f);
  }
  const p = {};
  for (const { type, value } of f.formatToParts(new Date(ms))) p[type] = Number(value);
  return p;
}

// offset is tz's offset from UTC at the instant ms, in ms.
function offset(ms, tz) {
  const p = wall(ms, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - (Math.floor(ms / 1000) * 1000);
}

// instant is the UTC instant of a wall-clock time in tz.
function instant(y, mo, d, h, mi, s, tz) {
  const guess = Date.UTC(y, mo, d, h, mi, s);
  if (tz === "UTC") return guess;
  const first = guess - offset(guess, tz);
  return guess - offset(first, tz);
}

// parseAt reads a one-shot task's time as the Go program's ParseAt: ISO
// 8601 with an offset or Z; without one, in tz, which is then required;
// after now.
export function parseAt(s, tz, now) {
  s = String(s).trim();
  const withOffset = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.exec(s);
  const local = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(s);
  let ms;
  if (withOffset) {
    ms = Date.parse(s);
  } else if (local) {
    if (tz === "") throw invalid(`at ${q(s)} has no offset: add one (Z for UTC, +01:00...) or give a timezone`);
    const [, y, mo, d, h, mi, sec] = local.map(Number);
    ms = instant(y, mo - 1, d, h, mi, sec || 0, zone(tz));
  }
  const parts = withOffset ?? local;
  if (!parts || Number.isNaN(ms) || Number(parts[2]) > 12 || Number(parts[3]) > 31 || Number(parts[4]) > 23 || Number(parts[5]) > 59) {
    throw invalid(`at ${q(s)} is not an ISO 8601 time: give one such as 2026-11-28T09:00:00+01:00 or 2026-11-28T08:00:00Z`);
  }
  if (ms <= now.getTime()) throw invalid(`at ${stamp(new Date(ms))} is not in the future (it is now ${stamp(now)}): give a later time`);
  return new Date(Math.floor(ms / 1000) * 1000);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = {
  "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
};

function cronFailure(expr, why) {
  return invalid(`cron ${q(expr)}: ${why}: give 5 fields, minute hour day-of-month month day-of-week, such as 0 9 * * 1-5 (9:00 on weekdays)`);
}

// field reads one cron field into the set of its values and whether it
// starts with * or ? (the day fields then match as the Go parser does:
// both must when either has one, else either may).
function field(text, f, expr) {
  const values = new Set();
  const value = (v) => {
    const i = f.names ? f.names.indexOf(v.toLowerCase()) : -1;
    const n = i >= 0 ? i + f.min : /^\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isNaN(n) || n < f.min || n > f.max) throw cronFailure(expr, `${f.name} ${q(v)} is not a value from ${f.min} to ${f.max}`);
    return n;
  };
  for (const part of text.split(",")) {
    const [range, stepText, extra] = part.split("/");
    if (extra !== undefined || range === "") throw cronFailure(expr, `${f.name} ${q(part)} is not a value, range or step`);
    let lo, hi;
    if (range === "*" || range === "?") [lo, hi] = [f.min, f.max];
    else if (range.includes("-")) {
      const [a, b, more] = range.split("-");
      if (more !== undefined) throw cronFailure(expr, `${f.name} ${q(part)} is not a range`);
      [lo, hi] = [value(a), value(b)];
    } else {
      lo = value(range);
      hi = stepText === undefined ? lo : f.max;
    }
    const step = stepText === undefined ? 1 : /^\d+$/.test(stepText) ? Number(stepText) : 0;
    if (step < 1) throw cronFailure(expr, `${f.name} step ${q(stepText)} is not a number from 1`);
    if (lo > hi) throw cronFailure(expr, `${f.name} range ${q(range)} runs backwards`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star: text.startsWith("*") || text.startsWith("?") };
}

// parseCron checks a cron schedule and its time zone as the Go program's
// ParseCron does, and gives {next(after: Date) -> Date | null}.
export function parseCron(expr, tz) {
  expr = String(expr).trim();
  if (expr.startsWith("CRON_TZ=") || expr.startsWith("TZ=")) throw invalid(`cron ${q(expr)}: give the time zone in timezone, not in the schedule`);
  if (expr.startsWith("@every")) throw invalid(`cron ${q(expr)}: @every is not a cron schedule: give 5 fields, such as */30 * * * * for every 30 minutes`);
  const text = expr.startsWith("@") ? DESCRIPTORS[expr] : expr;
  if (!text) throw cronFailure(expr, "unknown descriptor");
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw cronFailure(expr, `${parts.length} fields`);
  const [min, hour, dom, month, dow] = parts.map((p, i) => field(p, FIELDS[i], expr));
  const loc = zone(tz);
  const dayMatches = (y, mo, d) => {
    const domOK = dom.values.has(d);
    const dowOK = dow.values.has(new Date(Date.UTC(y, mo, d)).getUTCDay());
    return dom.star || dow.star ? domOK && dowOK : domOK || dowOK;
  };
  const hours = [...hour.values].sort((a, b) => a - b);
  const minutes = [...min.values].sort((a, b) => a - b);
  return {
    next(after) {
      const from = after.getTime();
      const p = wall(from, loc);
      // Five years of days, as the Go parser looks.
      for (let i = 0; i <= 366 * 5; i++) {
        const day = new Date(Date.UTC(p.year, p.month - 1, p.day + i));
        const [y, mo, d] = [day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()];
        if (!month.values.has(mo + 1) || !dayMatches(y, mo, d)) continue;
        for (const h of hours) {
          for (const mi of minutes) {
            const t = instant(y, mo, d, h, mi, 0, loc);
            if (t > from) return new Date(t);
          }
        }
      }
      return null;
    },
  };
}

// nextRun is when task runs next after now, null if never, as the Go
// program's Task.Next.
export function nextRun(task, now) {
  if (!task.enabled) return null;
  if (task.cron) {
    try {
      return parseCron(task.cron, task.timezone ?? "").next(now);
    } catch {
      return null;
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
// the Go program's.
function apply(t, c, now) {
  if (given(c.prompt)) t.prompt = c.prompt;
  const at = c.at, cron = c.cron;
  if (given(c.timezone)) t.timezone = String(c.timezone).trim();
  if (!t.timezone) delete t.timezone;
  if (at) {
    t.at = stamp(parseAt(at, t.timezone ?? "", now));
    delete t.cron;
  } else if (cron) {
    parseCron(cron, t.timezone ?? "");
    t.cron = cron;
    delete t.at;
  } else if (t.cron) {
    parseCron(t.cron, t.timezone ?? "");
  }
  zone(t.timezone ?? "");
  if (given(c.enabled)) t.enabled = c.enabled === true;
  const next = nextRun(t, now);
  if (next) t.next_run = stamp(next);
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
// with no one there to answer approval questions. now is the clock.
export class Tasks {
  #store;
  #run;
  #now;
  #changed;
  #queue = Promise.resolve(); // orders the read-change-write of records

  constructor({ store, run, now = () => new Date(), changed = () => {} }) {
    this.#store = store;
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

  async #named(name) {
    const t = await this.#get(name);
    if (t) return t;
    const names = (await this.list()).map((x) => x.name);
    if (names.length === 0) throw notFound(`no task ${q(name)}: there are no scheduled tasks; schedule_task creates one`);
    throw notFound(`no task ${q(name)}: the tasks are ${names.join(", ")}`);
  }

  create(c, ctx) {
    return this.#locked(async () => {
      const name = String(c?.name ?? "");
      await checkName(ctx, "task_name", name);
      c = await checkChange(ctx, c, true, false);
      if (await this.#get(name)) throw invalid(`a task ${q(name)} exists: update_scheduled_task changes it, or give another name`);
      const n = (await this.list()).length;
      if (n >= MAX_TASKS) throw invalid(`there are ${n} tasks, the most kept: delete_scheduled_task removes one first`);
      const now = this.#now();
      const t = apply({ name, prompt: "", enabled: true, created: stamp(now), runs: 0 }, c, now);
      await this.#put(t);
      this.#changed();
      return t;
    });
  }

  update(c, ctx) {
    return this.#locked(async () => {
      const t = await this.#named(String(c?.name ?? ""));
      apply(t, await checkChange(ctx, c, false, Boolean(t.at || t.cron)), this.#now());
      await this.#put(t);
      this.#changed();
      return t;
    });
  }

  remove(name) {
    return this.#locked(async () => {
      const t = await this.#named(String(name ?? ""));
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
      const next = nextRun(t, now);
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
  async runNow(name) {
    const [t, run] = await this.#locked(async () => {
      const t = await this.#named(String(name ?? ""));
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
      "schedules.run": async (args) => this.runNow(args?.name),
      "schedules.remove": async (args) => this.remove(args?.name),
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

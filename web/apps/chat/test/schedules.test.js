// The scheduled_tasks group in the JS hosts (web/packages/toolroute/host/schedules.js): the
// times and cron schedules read as the Go program reads them
// (internal/schedule's tests have the same cases), the tasks kept and run at
// their times by a TaskTimer on a fake clock and fake timers; and routing
// scenario 4, "Schedule a task for tomorrow", in the browser host: the
// task is scheduled in a chat and runs, while the page is open, as a page
// session of its own whose answer list_scheduled_tasks shows.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { readTime, nextRun, zoneOffsets, stamp, Tasks, TaskTimer } from "../../../packages/toolroute/host/schedules.js";
import { MemoryUIStore } from "../src/idbstore.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";
import { WAIT_MS } from "../../../packages/toolroute/test/busy.js";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Toolroute } from "toolroute";

// checks is what a host gives an operation: the module's argument checks
// (Host.op passes them; wasm/ABI.md, toolroute_check).
const checker = await Toolroute.instantiate(await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../../wasm/toolroute.wasm")));
const checks = { check: async (op, args) => checker.check({ op, args }) };

const NOW = new Date("2026-11-26T23:30:00Z");

// testdata/schedules/cases.json, which the Go program replays too
// (internal/schedule): the module reads the times, with the zones' offsets
// from Intl.
const timeCases = JSON.parse(await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../../testdata/schedules/cases.json"), "utf8"));
test("the module reads tasks' times as in every host (testdata/schedules)", async () => {
  for (const c of timeCases) {
    const read = readTime(checks.check, c.at ?? "", c.cron ?? "", c.timezone ?? "", new Date(c.now));
    if (c.error) {
      await assert.rejects(read, (e) => e.type === "invalid_arguments" && e.message === c.error, c.name);
      continue;
    }
    const got = await read;
    const want = c.want.next_run === undefined ? {} : { next_run: c.want.next_run, ...(c.want.at ? { at: c.want.at } : {}) };
    assert.deepEqual({ ...got }, want, c.name);
  }
});

test("nextRun: a task's at, its cron's next time, none when paused", async () => {
  for (const [task, want] of [
    [{ cron: "0 9 * * *", timezone: "Europe/Paris" }, "2026-11-27T08:00:00Z"],
    [{ at: "2026-11-27T09:00:00Z" }, "2026-11-27T09:00:00Z"],
    [{ at: "2026-11-26T09:00:00Z" }, null],
    [{ cron: "0 9 * * *", timezone: "Mars/Olympus" }, null],
  ]) {
    const next = await nextRun({ enabled: true, ...task }, NOW, checks.check);
    assert.equal(next && stamp(next), want, JSON.stringify(task));
  }
  assert.equal(await nextRun({ cron: "* * * * *", enabled: false }, NOW, checks.check), null);
  await assert.rejects(nextRun({ cron: "* * * * *", enabled: true }, NOW, undefined), /no module check/);
});

test("zoneOffsets gives Intl's offsets and each change once", () => {
  const from = Date.UTC(2026, 0, 1) / 1000, to = Date.UTC(2027, 0, 1) / 1000;
  assert.deepEqual(zoneOffsets("Europe/Paris", from, to), {
    known: true, from, to,
    offsets: [{ from, offset: 3600 }, { from: Date.UTC(2026, 2, 29, 1) / 1000, offset: 7200 }, { from: Date.UTC(2026, 9, 25, 1) / 1000, offset: 3600 }],
  });
  assert.deepEqual(zoneOffsets("Mars/Olympus", from, to), { known: false });
  const old = Date.UTC(2000, 0, 1) / 1000 - 2000 * 365.2425 * 86400; // year 0 or so
  assert.equal(zoneOffsets("UTC", old, old + 86400).offsets[0].offset, 0);
});

// fakeTimers are timers a test fires: run() fires those due by the clock.
function fakeTimers(clock) {
  let next = 1;
  const pending = new Map();
  return {
    setTimeout: (f, ms) => (pending.set(next, { f, at: clock.now + ms }), next++),
    clearTimeout: (id) => pending.delete(id),
    pending,
    async advance(to) {
      clock.now = to;
      for (;;) {
        const due = [...pending].filter(([, t]) => t.at <= clock.now).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        due[1].f();
        await new Promise((r) => setTimeout(r, 20)); // the tick's promises
      }
    },
  };
}

test("a TaskTimer runs one-shot and cron tasks at their times, and records their answers and failures", async () => {
  const clock = { now: NOW.getTime() };
  const now = () => new Date(clock.now);
  const runs = [];
  const store = new MemoryUIStore();
  let timer;
  const tasks = new Tasks({
    store, now, changed: () => timer.wake(), check: checks.check,
    run: async (id, title, prompt) => {
      runs.push([id, title, prompt]);
      if (prompt.includes("fail")) throw new Error("the model could not be reached");
      return "answered: " + prompt;
    },
  });
  const timers = fakeTimers(clock);
  timer = new TaskTimer(tasks, { now, timers });
  timer.start();
  await new Promise((r) => setTimeout(r, 20));
  const once = await tasks.create({ name: "standup", prompt: " Summarise my day ", at: "2026-11-27T09:00:00+01:00" }, checks);
  assert.deepEqual(once, { name: "standup", prompt: "Summarise my day", enabled: true, created: "2026-11-26T23:30:00Z", runs: 0, at: "2026-11-27T08:00:00Z", next_run: "2026-11-27T08:00:00Z" });
  await tasks.create({ name: "hourly", prompt: "fail, please", cron: "0 * * * *" }, checks);
  await new Promise((r) => setTimeout(r, 20));
  // The timer waits at most a minute, then for the next run.
  assert.ok([...timers.pending.values()].every((t) => t.at - clock.now <= 60_000));
  await timers.advance(Date.parse("2026-11-27T00:00:00Z"));
  assert.deepEqual(runs, [["task-hourly-20261127-000000", "Scheduled task: hourly", "fail, please"]]);
  await timers.advance(Date.parse("2026-11-27T08:00:00Z"));
  // The clock jumped eight hours: the missed hourly runs run once, then
  // the next hour.
  assert.deepEqual(runs.map((r) => r[0]), ["task-hourly-20261127-000000", "task-hourly-20261127-080000", "task-standup-20261127-080000"]);
  const [hourly, standup] = await tasks.list();
  assert.deepEqual(hourly.last_run, { session: "task-hourly-20261127-080000", started: "2026-11-27T08:00:00Z", status: "failed", result: "the model could not be reached" });
  assert.equal(hourly.next_run, "2026-11-27T09:00:00Z");
  assert.equal(hourly.runs, 2);
  assert.deepEqual(standup.last_run, { session: "task-standup-20261127-080000", started: "2026-11-27T08:00:00Z", status: "done", result: "answered: Summarise my day" });
  assert.equal(standup.next_run, undefined);
  timer.stop();
  assert.equal(timers.pending.size, 0);
});

test("the tasks' refusals are the Go program's", async () => {
  const tasks = new Tasks({ store: new MemoryUIStore(), now: () => NOW, run: async () => "", check: checks.check });
  await tasks.create({ name: "one", prompt: "x", cron: "@daily" }, checks);
  for (const [f, want] of [
    [() => tasks.create({ name: "Daily Summary", prompt: "x", cron: "@daily" }, checks), '"Daily Summary" is not a task name'],
    [() => tasks.create({ name: "two", cron: "@daily" }, checks), "the prompt is missing"],
    [() => tasks.create({ name: "two", prompt: "x" }, checks), "give at, an ISO 8601 time"],
    [() => tasks.create({ name: "two", prompt: "x", cron: "@daily", at: "2027-01-01T00:00:00Z" }, checks), "not both"],
    [() => tasks.create({ name: "one", prompt: "x", cron: "@daily" }, checks), 'a task "one" exists'],
    [() => tasks.remove("nope"), 'no task "nope": the tasks are one'],
    [() => tasks.runNow("nope"), 'no task "nope"'],
  ]) await assert.rejects(f(), (e) => e.message.includes(want), want);
});

const root = path.join(web, "..", "..", "..");
const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
const bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };

test("scenario 4 in the browser: a task scheduled for tomorrow runs while the page is open, in a session of its own, unattended", async () => {
  const model = fakeServer([
    { call: ["load_tool_group", { group_name: "scheduled_tasks" }] },
    { call: ["schedule_task", { name: "morning_news", prompt: "Summarise the news for me.", at: "2026-11-27T09:00:00+01:00" }] },
    { text: "Done: morning_news runs tomorrow at 9:00." },
    // The run, the next morning.
    { call: ["load_tool_group", { group_name: "scheduled_tasks" }] },
    { call: ["delete_scheduled_task", { name: "morning_news" }] },
    { text: "Here is your news summary: all quiet." },
    // The user asks.
    { call: ["list_scheduled_tasks", {}] },
    { text: "It ran." },
  ]);
  const clock = { now: Date.parse("2026-11-26T20:00:00Z") };
  const timers = fakeTimers(clock);
  const store = new MemoryUIStore();
  const told = [];
  const core = newCore(store, model.fetch, { catalogue: async () => bundle, tasks: { timers }, now: () => new Date(clock.now), onTaskRun: (r) => told.push(r) });
  const asked = [];
  const first = await ask(core, { type: "send", session: "a", text: "Schedule a task for tomorrow: a news summary at 9 (Paris)" }, (r) => {
    if (r.type === "event" && r.event.type === "approval") {
      asked.push(...r.event.calls.map((c) => c.tool));
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "a", answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(first.last.type, "done", JSON.stringify(first.last));
  const results = first.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => `${e.message.tool_name} ${e.message.status}: ${e.message.content}`);
  assert.equal(results[1], "schedule_task success: Scheduled task 'morning_news': it runs once at 2026-11-27T08:00:00Z as a new session of its own. list_scheduled_tasks shows its answer once it has run.");
  assert.deepEqual(asked, ["schedule_task"]);
  const names = (req) => (req.body?.tools ?? req.tools ?? []).map((x) => x.function?.name ?? x.name);
  assert.deepEqual(names(model.requests[1]).slice(-5), ["schedule_task", "list_scheduled_tasks", "run_scheduled_task", "update_scheduled_task", "delete_scheduled_task"]);

  await timers.advance(Date.parse("2026-11-27T07:59:59Z"));
  assert.equal(model.requests.length, 3, "nothing ran before its time");
  await timers.advance(Date.parse("2026-11-27T08:00:05Z"));
  for (const end = Date.now() + WAIT_MS; Date.now() < end && (await store.session("task-morning_news-20261127-080005"))?.title !== "Scheduled task: morning_news";) await new Promise((r) => setTimeout(r, 50));
  const run = await store.messages("task-morning_news-20261127-080005");
  assert.equal(run[0].content, "Summarise the news for me.");
  const refused = run.find((m) => m.type === "tool_result" && m.tool_name === "delete_scheduled_task");
  assert.equal(refused.content, "Error (approval_needed): 'delete_scheduled_task' asks the user before it runs, and no one is here to answer (it runs unattended, as a scheduled task). " +
    "It did not run. In this page a tool that asks runs only in a chat, where the user is asked first: the user can ask for it there.");
  assert.equal(run.at(-1).content, "Here is your news summary: all quiet.");
  assert.deepEqual(asked, ["schedule_task"], "the run asked no one");
  assert.deepEqual(told, [{ session: "task-morning_news-20261127-080005", title: "Scheduled task: morning_news" }], "the page is told, to list the session");

  const third = await ask(core, { type: "send", session: "a", text: "Did my task run?" });
  const listed = third.events.find((e) => e.type === "message" && e.message.type === "tool_result").message.content;
  assert.equal(listed, "1 scheduled task:\n- morning_news: runs once at 2026-11-27T08:00:00Z; will not run again; last run 2026-11-27T08:00:05Z in session task-morning_news-20261127-080005, done.\n  Prompt: Summarise the news for me.\n  Answer: Here is your news summary: all quiet.");
  core.close();
});

test("run_scheduled_task in the browser runs the task now, a turn inside the turn that calls it, and gives its answer", async () => {
  const model = fakeServer([
    { call: ["load_tool_group", { group_name: "scheduled_tasks" }] },
    { call: ["run_scheduled_task", { name: "weekly" }] },
    { text: "Weekly report: 3 things done." }, // the task's run
    { text: "It says 3 things were done." },
  ]);
  const store = new MemoryUIStore();
  const clock = { now: Date.parse("2026-11-26T20:00:00Z") };
  const core = newCore(store, model.fetch, { catalogue: async () => bundle, now: () => new Date(clock.now) });
  await core.tasks.create({ name: "weekly", prompt: "Write the weekly report.", cron: "0 17 * * 5", timezone: "Europe/London" }, checks);
  const r = await ask(core, { type: "send", session: "b", text: "Run my weekly task" }, (x) => {
    if (x.type === "event" && x.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "b", answers: x.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(r.last.type, "done", JSON.stringify(r.last));
  const result = r.events.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(result.content, "Task 'weekly' ran in session task-weekly-20261126-200000. Its answer:\nWeekly report: 3 things done.");
  const [t] = await core.tasks.list();
  assert.equal(t.next_run, "2026-11-27T17:00:00Z", "the schedule stays");
  assert.equal((await store.session("task-weekly-20261126-200000")).title, "Scheduled task: weekly");
});

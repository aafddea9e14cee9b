// The scheduled_tasks group: a task is a prompt the host runs later as an
// agent turn in a session of its own, once at a time or on a cron
// schedule (toolroute.schedules). Each host keeps the tasks and runs them
// its own way (the Go program's serve; see docs/design/builtin-tools.md)
// and checks what is given here.

function lastRunText(r) {
  if (!r) return "never run";
  if (r.status === "running") return "running since " + r.started + " in session " + r.session;
  return "last run " + r.started + " in session " + r.session + ", " + r.status;
}

function taskText(t) {
  const when = t.cron ? "on the cron schedule " + t.cron + " (" + (t.timezone || "UTC") + ")" : "once at " + t.at;
  const next = !t.enabled ? "paused" : t.next_run ? "next run " + t.next_run : "will not run again";
  const r = t.last_run;
  const outcome = r && r.status !== "running" ? "\n  " + (r.status === "failed" ? "Failure: " : "Answer: ") + r.result : "";
  return t.name + ": runs " + when + "; " + next + "; " + lastRunText(r) + ".\n  Prompt: " + t.prompt + outcome;
}

function change(params) {
  const c = { name: String(params.name ?? "") };
  for (const k of ["prompt", "at", "cron", "timezone"]) if (params[k] !== undefined && params[k] !== null) c[k] = String(params[k]);
  if (params.enabled !== undefined && params.enabled !== null) c.enabled = params.enabled === true || params.enabled === "true";
  return c;
}

async function scheduleTask(params) {
  const t = await toolroute.schedules.create(change(params));
  const when = t.cron ? "on the cron schedule " + t.cron + " (" + (t.timezone || "UTC") + "), next at " + t.next_run : "once at " + t.at;
  return "Scheduled task '" + t.name + "': it runs " + when + " as a new session of its own. list_scheduled_tasks shows its answer once it has run.";
}

async function listScheduledTasks() {
  const ts = await toolroute.schedules.list();
  if (ts.length === 0) return "No scheduled tasks. schedule_task creates one.";
  return ts.length + (ts.length === 1 ? " scheduled task:\n" : " scheduled tasks:\n") + ts.map((t) => "- " + taskText(t)).join("\n");
}

async function runScheduledTask(params) {
  const t = await toolroute.schedules.run(params.name);
  const r = t.last_run;
  if (r.status === "failed") {
    const e = new Error("Task '" + t.name + "' ran in session " + r.session + " and failed: " + r.result);
    e.type = "run_failed";
    throw e;
  }
  return "Task '" + t.name + "' ran in session " + r.session + ". Its answer:\n" + r.result;
}

async function updateScheduledTask(params) {
  const t = await toolroute.schedules.update(change(params));
  return "Task updated: " + taskText(t);
}

async function deleteScheduledTask(params) {
  const t = await toolroute.schedules.remove(params.name);
  return "Task '" + t.name + "' deleted" + (t.runs ? "; the sessions of its " + t.runs + (t.runs === 1 ? " run stay." : " runs stay.") : ".");
}

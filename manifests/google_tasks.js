// Google Tasks tools: Tasks API v1 (https://tasks.googleapis.com/tasks/v1).
const g = lib("google_api");
const _base = "https://tasks.googleapis.com/tasks/v1";

function _list(params) {
  return params.tasklist_id ? String(params.tasklist_id) : "@default";
}

function _taskURL(params) {
  return _base + "/lists/" + g.pathId(_list(params)) + "/tasks/" + g.pathId(params.task_id);
}

function _notFound(params) {
  return "No task " + params.task_id + " in " + (params.tasklist_id ? "list " + params.tasklist_id : "the default list") +
    ": find the id with tasks_list (and the list's with tasks_list_task_lists).";
}

// _due turns YYYY-MM-DD into the timestamp the API takes; "" stays "".
function _due(day) {
  const s = String(day).trim();
  if (s === "") return "";
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw new Error("due must be a date as YYYY-MM-DD, such as 2026-12-01; got " + JSON.stringify(day));
  return s + "T00:00:00.000Z";
}

function _day(ts) {
  return ts ? String(ts).slice(0, 10) : "";
}

function _line(t) {
  let s = "- [" + (t.status === "completed" ? "x" : " ") + "] " + t.title + " (id: " + t.id;
  if (t.due) s += ", due " + _day(t.due);
  if (t.completed) s += ", completed " + _day(t.completed);
  if (t.parent) s += ", subtask of " + t.parent;
  s += ")";
  if (t.notes) s += "\n  " + g.cut(t.notes, 300).replace(/\n/g, "\n  ");
  return s;
}

async function listTaskLists(params) {
  const res = await g.request("GET", _base + "/users/@me/lists", { query: { maxResults: 100 }, scope: g.scopes.tasksReadonly, what: "task lists" });
  const lists = res.items || [];
  if (!lists.length) return "No task lists.";
  return lists.length + " task list" + (lists.length > 1 ? "s" : "") + ":\n" +
    lists.map((l, i) => "- " + l.title + " (id: " + l.id + ")" + (i === 0 ? " [default]" : "")).join("\n");
}

async function createTaskList(params) {
  g.need(params, "title");
  const l = await g.request("POST", _base + "/users/@me/lists", { body: { title: params.title }, scope: g.scopes.tasks, what: "new task list" });
  return "Created the task list \"" + l.title + "\" (id: " + l.id + ").";
}

async function listTasks(params) {
  const query = { showCompleted: params.show_completed ? "true" : "false", maxResults: params.max_results || 20 };
  if (params.show_completed) query.showHidden = "true";
  if (params.due_before) query.dueMax = _due(params.due_before).replace("T00:00:00.000Z", "T23:59:59.999Z");
  const res = await g.request("GET", _base + "/lists/" + g.pathId(_list(params)) + "/tasks", {
    query, scope: g.scopes.tasksReadonly, what: "tasks",
    notFound: "No task list " + _list(params) + ": find its id with tasks_list_task_lists.",
  });
  const tasks = (res.items || []).slice();
  if (!tasks.length) return params.show_completed ? "The list has no tasks." : "No open tasks in the list.";
  tasks.sort((a, b) => (a.status === "completed") - (b.status === "completed"));
  let out = tasks.length + " task" + (tasks.length > 1 ? "s" : "") + ":\n" + tasks.map(_line).join("\n");
  if (res.nextPageToken) out += "\n(More tasks exist: raise max_results, up to 100.)";
  return out;
}

async function getTask(params) {
  g.need(params, "task_id");
  const t = await g.request("GET", _taskURL(params), { scope: g.scopes.tasksReadonly, what: "task " + params.task_id, notFound: _notFound(params) });
  const lines = [
    "Title: " + t.title,
    "Id: " + t.id,
    "Status: " + (t.status === "completed" ? "completed " + _day(t.completed) : "needs action"),
  ];
  if (t.due) lines.push("Due: " + _day(t.due));
  if (t.parent) lines.push("Subtask of: " + t.parent);
  if (t.notes) lines.push("Notes: " + g.cut(t.notes, 4000));
  if (t.webViewLink) lines.push("Link: " + t.webViewLink);
  return lines.join("\n");
}

async function createTask(params) {
  g.need(params, "title");
  const body = { title: params.title };
  if (params.notes) body.notes = params.notes;
  if (params.due) body.due = _due(params.due);
  const query = params.parent_task_id ? { parent: params.parent_task_id } : {};
  const t = await g.request("POST", _base + "/lists/" + g.pathId(_list(params)) + "/tasks", {
    query, body, scope: g.scopes.tasks, what: "new task",
    notFound: params.parent_task_id
      ? "No list " + _list(params) + " or no parent task " + params.parent_task_id + " in it: check the ids with tasks_list."
      : "No task list " + _list(params) + ": find its id with tasks_list_task_lists.",
  });
  return "Created the task \"" + t.title + "\" (id: " + t.id + (t.due ? ", due " + _day(t.due) : "") + ").";
}

async function updateTask(params) {
  g.need(params, "task_id");
  const body = {};
  if (params.title !== undefined) body.title = params.title;
  if (params.notes !== undefined) body.notes = params.notes;
  if (params.due !== undefined) body.due = _due(params.due);
  if (!Object.keys(body).length) throw new Error("Nothing to change: give a title, notes or due.");
  const t = await g.request("PATCH", _taskURL(params), { body, scope: g.scopes.tasks, what: "task " + params.task_id, notFound: _notFound(params) });
  return "Updated:\n" + _line(t);
}

async function completeTask(params) {
  g.need(params, "task_id");
  const status = params.undo ? "needsAction" : "completed";
  const t = await g.request("PATCH", _taskURL(params), { body: { status }, scope: g.scopes.tasks, what: "task " + params.task_id, notFound: _notFound(params) });
  return (params.undo ? "Marked as not done: " : "Completed: ") + t.title + " (id: " + t.id + ").";
}

async function deleteTask(params) {
  g.need(params, "task_id");
  await g.request("DELETE", _taskURL(params), { scope: g.scopes.tasks, what: "task " + params.task_id, notFound: _notFound(params) });
  return "Deleted the task " + params.task_id + ".";
}

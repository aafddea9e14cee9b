// The config group: the host's settings (toolroute.settings), the variables
// JS tools may read (toolroute.env) and which tools are enabled
// (toolroute.tools). Each host keeps them its own way and checks what is
// set; a host that cannot change something does not offer the tool that
// would (see DESIGN.md, "One tool layer").

async function listSettings() {
  const settings = await toolroute.settings.list();
  return settings
    .map((s) => "- " + s.key + " = " + (s.value !== "" ? s.value : s.default + " (default)") + ": " + s.description)
    .join("\n");
}

async function setSetting(params) {
  const key = String(params.key);
  const value = String(params.value ?? "");
  const s = await toolroute.settings.set(key, value);
  return value === "" ? key + " restored to its default, " + s.default + "." : key + " is now " + value + ".";
}

async function listEnvVars() {
  const names = await toolroute.env.list();
  return names.length === 0 ? "No environment variables are set for tools." : "Set: " + names.join(", ");
}

async function setEnvVar(params) {
  const name = String(params.name);
  const value = String(params.value ?? "");
  await toolroute.env.set(name, value);
  return value === "" ? name + " removed." : name + " set.";
}

async function listToolStates() {
  const states = await toolroute.tools.list();
  return states
    .map((s) => "- " + s.name + " (" + (s.group || "core") + "): " + (s.enabled ? "enabled" : "disabled"))
    .join("\n");
}

async function setToolEnabled(params) {
  const name = String(params.name);
  const s = await toolroute.tools.setEnabled(name, params.enabled);
  return name + (s.enabled ? " is enabled." : " is disabled.");
}

// The config group: stored model providers and their models
// (toolroute.providers, toolroute.models), stored agents
// (toolroute.agents), the host's settings (toolroute.settings), the
// variables JS tools may read (toolroute.env) and which tools are enabled
// (toolroute.tools). Each host keeps them its own way and checks what is
// set; a host that cannot change something does not offer the tool that
// would (see docs/design/builtin-tools.md). A key's value never passes
// here: a provider names the secret that holds it.

function fail(type, message) {
  const e = new Error(message);
  e.type = type;
  throw e;
}

function providerText(p) {
  const key = p.key_secret ? "its key from the secret " + p.key_secret + (p.key_set ? " (set)" : " (not set yet: the user sets it, or manage_env_var does, asking first)") : "no key";
  return p.format + " at " + p.base_url + ", " + key;
}

async function listProviders() {
  const ps = await toolroute.providers.list();
  if (ps.length === 0) return "No providers are stored: model calls go to the host's own provider. create_provider adds one.";
  return ps
    .map((p) => "- " + p.name + (p.active ? " (model calls go here)" : "") + ": " + providerText(p) + "; default model " +
      (p.default_model || "none") + "; " + p.models.length + (p.models.length === 1 ? " model" : " models"))
    .join("\n");
}

async function createProvider(params) {
  const p = await toolroute.providers.create({ name: String(params.name ?? ""), format: String(params.format ?? ""), base_url: String(params.base_url ?? ""), key_secret: String(params.key_secret ?? "") });
  return "Provider '" + p.name + "' created: " + providerText(p) + ". set_config provider " + p.name + " sends model calls to it; fetch_models reads its models.";
}

async function updateProvider(params) {
  const change = { name: String(params.name ?? "") };
  for (const k of ["format", "base_url", "key_secret"]) if (params[k] !== undefined && params[k] !== null) change[k] = String(params[k]);
  const p = await toolroute.providers.update(change);
  return "Provider '" + p.name + "' updated: " + providerText(p) + "." + (p.active ? " Model calls use it from the next message." : "");
}

async function deleteProvider(params) {
  const p = await toolroute.providers.remove(params.name);
  return "Provider '" + p.name + "' deleted.";
}

function modelsText(p) {
  if (p.models.length === 0) return p.name + " has no models yet: fetch_models reads them from the provider, add_model adds one.";
  return "Models of " + p.name + " (" + p.models.length + "): " + p.models.map((m) => (m === p.default_model ? m + " (default)" : m)).join(", ");
}

async function listModels(params) {
  return modelsText(await toolroute.models.list(params.provider));
}

// SHOWN bounds the models fetch_models names; list_models names them all.
const SHOWN = 100;

async function fetchModels(params) {
  const p = await toolroute.models.fetch(params.provider);
  const names = p.models.slice(0, SHOWN).join(", ");
  const more = p.models.length > SHOWN ? " and " + (p.models.length - SHOWN) + " more (list_models lists them all)" : "";
  return "Fetched " + p.fetched + " models from " + p.name + "'s model list (" + p.new + " new)" + (p.models.length ? ": " + names + more : "") + ".";
}

async function setDefaultModel(params) {
  const p = await toolroute.models.setDefault(params.provider, params.model);
  return p.name + "'s default model is now " + p.default_model + "." + (p.active ? " Model calls use it from the next message." : "");
}

async function addModel(params) {
  const p = await toolroute.models.add(params.provider, params.model);
  return "Added " + String(params.model).trim() + " to " + p.name + " (" + p.models.length + (p.models.length === 1 ? " model)." : " models).");
}

async function deleteModel(params) {
  const p = await toolroute.models.remove(params.provider, params.model);
  return "Deleted " + String(params.model).trim() + " from " + p.name + " (" + p.models.length + (p.models.length === 1 ? " model left)." : " models left).");
}

function agentText(a) {
  const prompt = a.system_prompt.length > 80 ? a.system_prompt.slice(0, 80) + "…" : a.system_prompt;
  return "model " + (a.model || "the session's") + "; groups " + (a.groups.length ? a.groups.join(", ") : "all") +
    (a.tool_budget > 0 ? "; tool budget " + a.tool_budget + " tokens" : "") + "; prompt: " + prompt;
}

async function listAgents() {
  const agents = await toolroute.agents.list();
  if (agents.length === 0) return "No agents are stored. update_agent stores one.";
  return agents.map((a) => "- " + a.name + ": " + agentText(a)).join("\n");
}

async function updateAgent(params) {
  const change = { name: String(params.name ?? "") };
  for (const k of ["system_prompt", "model"]) if (params[k] !== undefined && params[k] !== null) change[k] = String(params[k]);
  if (params.groups !== undefined && params.groups !== null) {
    if (!Array.isArray(params.groups)) fail("invalid_arguments", "groups must be a list of tool group names");
    change.groups = params.groups.map(String);
  }
  if (params.tool_budget !== undefined && params.tool_budget !== null) change.tool_budget = params.tool_budget;
  const a = await toolroute.agents.update(change);
  return "Agent '" + a.name + "' " + (a.created ? "stored" : "updated") + ": " + agentText(a) + ".";
}

async function deleteAgent(params) {
  const a = await toolroute.agents.remove(params.name);
  return "Agent '" + a.name + "' deleted.";
}

function settingLine(s) {
  return "- " + s.key + " = " + (s.value !== "" ? s.value : s.default + " (default)") + ": " + s.description;
}

async function getConfig(params) {
  const settings = await toolroute.settings.list();
  const key = String(params.key ?? "").trim();
  if (key !== "") {
    const s = settings.find((x) => x.key === key);
    if (!s) fail("not_found", "no setting " + JSON.stringify(key) + ": use one of " + settings.map((x) => x.key).join(", "));
    return settingLine(s);
  }
  const names = await toolroute.env.list();
  return settings.map(settingLine).join("\n") + "\n" +
    (names.length === 0 ? "No environment variables are set for tools." : "Variables set for tools (names only): " + names.join(", "));
}

async function setConfig(params) {
  const key = String(params.key);
  const value = String(params.value ?? "");
  const s = await toolroute.settings.set(key, value);
  return value === "" ? key + " restored to its default, " + s.default + "." : key + " is now " + value + ".";
}

async function manageEnvVar(params) {
  const action = String(params.action ?? "");
  const name = String(params.name ?? "");
  const value = String(params.value ?? "");
  switch (action) {
    case "list": {
      const names = await toolroute.env.list();
      return names.length === 0 ? "No environment variables are set for tools." : "Set: " + names.join(", ");
    }
    case "set":
      if (value === "") fail("invalid_arguments", "set needs a value: delete removes a variable");
      await toolroute.env.set(name, value);
      return name + " set.";
    case "delete":
      if (!(await toolroute.env.list()).includes(name)) fail("not_found", "no variable " + JSON.stringify(name) + " is set: list gives the names");
      await toolroute.env.set(name, "");
      return name + " removed.";
  }
  fail("invalid_arguments", "action " + JSON.stringify(action) + ": use list, set or delete");
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

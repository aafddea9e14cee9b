// The config group's stored records in a JS host's settings store: model
// providers and their models, and agents, the same as the Go program's
// (internal/builtin/providers.go, modellist.go), answered in the same shapes
// with the same refusals:
//   providers.list {}                                  -> [provider state]
//   providers.create {name, format, base_url, key_secret} -> provider state
//   providers.update {name, format?, base_url?, key_secret?} -> provider state
//   providers.remove {name}                            -> the record
//   models.list|fetch {provider}                       -> provider state
//     (fetch adds {fetched, new})
//   models.add|remove|setDefault {provider, model}     -> provider state
//   agents.list {}                                     -> [agent]
//   agents.update {name, system_prompt?, model?, groups?, tool_budget?} -> agent, created
//   agents.remove {name}                               -> the agent
// A provider state is {name, format, base_url, key_secret, models,
// default_model, key_set, active}: the name of the secret holding the key
// (a variable, env.NAME), never its value.

import { checked, checkName } from "./checks.js";

export const PROVIDER_PREFIX = "provider.";
export const AGENT_PREFIX = "agent.";
// PROVIDER_SETTING names the stored provider model calls go to.
export const PROVIDER_SETTING = "provider";
const ENV_PREFIX = "env.";

export const PROVIDER_FORMATS = ["openai", "anthropic", "responses", "gemini"];
export const DEFAULT_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  responses: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  gemini: "https://generativelanguage.googleapis.com",
};
export const MAX_MODELS = 500;
export const MAX_AGENT_PROMPT = 20000;
export const MAX_MODEL_LIST_BYTES = 4 << 20;
const MAX_MODEL_LIST_PAGES = 10;

function toolError(type, message) {
  return Object.assign(new Error(message), { type });
}
const invalid = (m) => toolError("invalid_arguments", m);
const notFound = (m) => toolError("not_found", m);
const q = (s) => JSON.stringify(String(s));

// checkProvider has the module check a record (provider_name,
// provider_record) and fills in its defaults, as the Go program's
// CheckProvider.
export async function checkProvider(ctx, p) {
  await checkName(ctx, "provider_name", p.name);
  const a = await checked(ctx, "provider_record", { name: p.name, format: p.format, base_url: p.base_url, key_secret: p.key_secret });
  p.base_url = a.base_url;
  p.models ??= [];
  p.default_model ??= "";
  return p;
}

function checkModel(m) {
  if (m.trim() === "" || m.length > 200 || /[ \t\r\n]/.test(m)) throw invalid(`${q(m)} is not a model name: give the provider's id for it, such as gpt-4.1-mini`);
  return m;
}

function parse(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

// storedProvider is the stored provider name with its key's value ("" when
// its secret is unset), or null, from a settings object.
export function storedProvider(settings, name) {
  const p = parse(settings[PROVIDER_PREFIX + name] ?? "");
  if (!p) return null;
  return { record: p, key: p.key_secret ? settings[ENV_PREFIX + p.key_secret] ?? "" : "" };
}

// recordOps gives the operations over:
//   store: {settings(), setSettings(patch)} (a null value deletes a key);
//   groups: async () => [group name], the catalogue's, in its order;
//   fetch: the fetch model lists are read with.
export function recordOps({ store, groups, fetch = (...a) => globalThis.fetch(...a) }) {
  const all = async (prefix) => {
    const s = await store.settings();
    return Object.keys(s).filter((k) => k.startsWith(prefix)).sort().map((k) => parse(s[k])).filter(Boolean);
  };
  const state = async (p) => {
    const s = await store.settings();
    return {
      name: p.name, format: p.format, base_url: p.base_url, key_secret: p.key_secret ?? "", models: p.models ?? [], default_model: p.default_model ?? "",
      key_set: !!p.key_secret && Object.hasOwn(s, ENV_PREFIX + p.key_secret), active: s[PROVIDER_SETTING] === p.name,
    };
  };
  const get = async (name) => {
    const p = parse((await store.settings())[PROVIDER_PREFIX + name] ?? "");
    if (!p) throw notFound(`no provider ${q(name)}: list_providers lists them`);
    p.models ??= [];
    return p;
  };
  const save = async (p) => {
    const kept = { name: p.name, format: p.format, base_url: p.base_url, key_secret: p.key_secret, models: p.models, default_model: p.default_model };
    await store.setSettings({ [PROVIDER_PREFIX + p.name]: JSON.stringify(kept) });
    return state(kept);
  };
  const str = (v) => (v === undefined || v === null ? undefined : String(v).trim());
  const modelArgs = (args) => ({ provider: String(args?.provider ?? ""), model: checkModel(String(args?.model ?? "").trim()) });
  return {
    "providers.list": async () => Promise.all((await all(PROVIDER_PREFIX)).map(state)),
    "providers.create": async (args, ctx) => {
      const p = await checkProvider(ctx, { name: String(args?.name ?? ""), format: str(args?.format) ?? "", base_url: str(args?.base_url) ?? "", key_secret: str(args?.key_secret) ?? "" });
      if (Object.hasOwn(await store.settings(), PROVIDER_PREFIX + p.name)) throw invalid(`a provider ${q(p.name)} exists: update_provider changes it`);
      return save(p);
    },
    "providers.update": async (args, ctx) => {
      const p = await get(String(args?.name ?? ""));
      for (const k of ["format", "base_url", "key_secret"]) if (str(args?.[k]) !== undefined) p[k] = str(args[k]);
      return save(await checkProvider(ctx, p));
    },
    "providers.remove": async (args) => {
      const p = await get(String(args?.name ?? ""));
      if ((await store.settings())[PROVIDER_SETTING] === p.name) throw invalid(`model calls go to ${q(p.name)} now: set_config provider to another (or empty) first`);
      await store.setSettings({ [PROVIDER_PREFIX + p.name]: null });
      return p;
    },
    "models.list": async (args) => state(await get(String(args?.provider ?? ""))),
    "models.fetch": async (args, ctx) => {
      const name = String(args?.provider ?? "");
      const found = storedProvider(await store.settings(), name);
      if (!found) throw notFound(`no provider ${q(name)}: list_providers lists them`);
      const p = found.record;
      if (p.key_secret && !found.key) throw invalid(`${p.name}'s key, the secret ${p.key_secret}, is not set: the user sets it (or manage_env_var does, asking first)`);
      const ids = await fetchModels(fetch, p.format, p.base_url, found.key, ctx);
      const before = p.models ?? [];
      const fresh = ids.filter((id) => !before.includes(id)).length;
      p.models = ids.slice(0, MAX_MODELS);
      return { ...(await save(p)), fetched: ids.length, new: fresh };
    },
    "models.add": async (args) => {
      const a = modelArgs(args);
      const p = await get(a.provider);
      if (p.models.includes(a.model)) throw invalid(`${p.name} already has the model ${q(a.model)}`);
      if (p.models.length >= MAX_MODELS) throw invalid(`${p.name} has ${MAX_MODELS} models, the most a provider keeps: delete_model some first`);
      p.models.push(a.model);
      return save(p);
    },
    "models.remove": async (args) => {
      const a = modelArgs(args);
      const p = await get(a.provider);
      const i = p.models.indexOf(a.model);
      if (i < 0) throw notFound(`${p.name} has no model ${q(a.model)}: list_models lists them`);
      p.models.splice(i, 1);
      if (p.default_model === a.model) p.default_model = "";
      return save(p);
    },
    "models.setDefault": async (args) => {
      const a = modelArgs(args);
      const p = await get(a.provider);
      if (!p.models.includes(a.model)) {
        if (p.models.length >= MAX_MODELS) throw invalid(`${p.name} has ${MAX_MODELS} models, the most a provider keeps: delete_model some first`);
        p.models.push(a.model);
      }
      p.default_model = a.model;
      return save(p);
    },
    "agents.list": async () => (await all(AGENT_PREFIX)).map(agentShape),
    "agents.update": async (args, ctx) => {
      const name = String(args?.name ?? "");
      await checkName(ctx, "agent_name", name);
      const old = parse((await store.settings())[AGENT_PREFIX + name] ?? "");
      const a = agentShape({ ...(old ?? {}), name });
      if (str(args?.system_prompt) !== undefined) a.system_prompt = str(args.system_prompt);
      if (!old && a.system_prompt === "") throw invalid("a new agent needs a system_prompt: say who it is and what it does");
      if ([...a.system_prompt].length > MAX_AGENT_PROMPT) throw invalid(`the system_prompt is over ${MAX_AGENT_PROMPT} characters: shorten it`);
      if (str(args?.model) !== undefined) {
        a.model = str(args.model);
        if (a.model !== "") checkModel(a.model);
      }
      if (args?.groups !== undefined && args?.groups !== null) {
        if (!Array.isArray(args.groups)) throw invalid("groups must be a list of tool group names");
        const known = await groups();
        a.groups = [];
        for (const g of args.groups.map(String)) {
          if (!known.includes(g)) throw notFound(`no tool group ${q(g)}: use some of ${known.join(", ")}`);
          if (!a.groups.includes(g)) a.groups.push(g);
        }
      }
      if (args?.tool_budget !== undefined && args?.tool_budget !== null) {
        const b = args.tool_budget;
        if (typeof b !== "number" || !Number.isInteger(b) || b < 0 || b > MAX_TOOL_BUDGET) throw invalid(`tool_budget must be a whole number of tokens from 0 (the session's budget) to ${MAX_TOOL_BUDGET}`);
        if (b > 0) a.tool_budget = b;
        else delete a.tool_budget;
      }
      await store.setSettings({ [AGENT_PREFIX + name]: JSON.stringify(a) });
      return { ...a, created: !old };
    },
    "agents.remove": async (args) => {
      const name = String(args?.name ?? "");
      const old = parse((await store.settings())[AGENT_PREFIX + name] ?? "");
      if (!old) throw notFound(`no agent ${q(name)}: list_agents lists them`);
      await store.setSettings({ [AGENT_PREFIX + name]: null });
      return agentShape(old);
    },
  };
}

// agentShape is a stored agent record as every reader gives it.
export function agentShape(a) {
  const out = { name: String(a.name ?? ""), system_prompt: String(a.system_prompt ?? ""), model: String(a.model ?? ""), groups: Array.isArray(a.groups) ? a.groups.map(String) : [] };
  if (Number.isInteger(a.tool_budget) && a.tool_budget > 0) out.tool_budget = a.tool_budget;
  return out;
}

// MAX_TOOL_BUDGET bounds an agent's tool budget, as the Go program's
// MaxToolBudget does.
const MAX_TOOL_BUDGET = 1_000_000;

// fetchModels reads a provider's model list as the Go program's
// FetchModels: OpenAI's GET BASE/models, Anthropic's GET BASE/v1/models
// (by after_id pages), Gemini's GET BASE/v1beta/models (by pageToken
// pages, the models that generate content), each with its key header;
// the module reads each page (ctx's check, model_list).
export async function fetchModels(fetch, format, baseURL, key, ctx) {
  const base = String(baseURL).replace(/\/+$/, "");
  let ids = [];
  let next = "";
  for (let page = 0; page < MAX_MODEL_LIST_PAGES; page++) {
    let url;
    const headers = {};
    if (format === "openai" || format === "responses") {
      url = base + "/models";
      if (key) headers.Authorization = "Bearer " + key;
    } else if (format === "anthropic") {
      url = base + "/v1/models?limit=1000" + (next ? "&after_id=" + encodeURIComponent(next) : "");
      if (key) headers["x-api-key"] = key;
      headers["anthropic-version"] = "2023-06-01";
      headers["anthropic-dangerous-direct-browser-access"] = "true";
    } else if (format === "gemini") {
      url = base + "/v1beta/models?pageSize=1000" + (next ? "&pageToken=" + encodeURIComponent(next) : "");
      if (key) headers["x-goog-api-key"] = key;
    } else {
      throw invalid(`format ${q(format)} has no model list: use one of ${PROVIDER_FORMATS.join(", ")}`);
    }
    let resp;
    try {
      resp = await fetch(url, { method: "GET", headers });
    } catch (e) {
      throw toolError("execution_error", `GET ${url} could not be reached: ${e?.message ?? e}`);
    }
    let text = await resp.text();
    const over = new TextEncoder().encode(text).length > MAX_MODEL_LIST_BYTES;
    if (over) text = "";
    ({ ids, next } = await checked(ctx, "model_list", { format, url, status: resp.status, body: text, over, ids }));
    if (!next) break;
  }
  return ids;
}

// The worker's model provider, from its variables and secrets, chosen as
// the Go program chooses it (internal/app/provider.go): TOOLROUTE_PROVIDER, or
// the provider whose key is set (OpenAI first, then Anthropic, then Gemini;
// the Responses API only when named, as it shares OpenAI's variables); the
// model: TOOLROUTE_MODEL or the provider's default.

import providers from "../../../assets/providers.json" with { type: "json" };

// The kinds of provider, their variables and defaults are
// assets/providers.json, which the Go program reads too.
const kind = (name) => providers.kinds.find((k) => k.name === name);
export const DEFAULT_OPENAI_MODEL = kind("openai").model;
export const DEFAULT_ANTHROPIC_MODEL = kind("anthropic").model;
export const DEFAULT_RESPONSES_MODEL = kind("responses").model;
export const DEFAULT_GEMINI_MODEL = kind("gemini").model;
export const DEFAULT_LOCAL_MODEL = providers.local_model;
const KIND_NAMES = providers.kinds.map((k) => k.name);
// needs is the error of a kind chosen without its key (or its base URL,
// when that alone will do).
const needs = (k) =>
  k.base_alone
    ? `TOOLROUTE_PROVIDER=${k.name} needs the ${k.key_var} secret, or the ${k.base_var} variable ${k.base_alone}`
    : `TOOLROUTE_PROVIDER=${k.name} needs the ${k.key_var} secret`;

// NO_PROVIDER says how to give the worker a provider: the variables as
// assets/providers.json explains them, then the worker's way to set them.
export const NO_PROVIDER = `no model provider is configured. Give the worker one of these (a key as a secret: wrangler secret put NAME; a base URL as a variable):
${providers.variables.map(([name, text]) => `  ${name.padEnd(20)}${text}`).join("\n")}
then pick the model with the TOOLROUTE_MODEL variable. TOOLROUTE_PROVIDER=responses speaks OpenAI's Responses API
with the OpenAI secret and variable; TOOLROUTE_PROVIDER=demo plays a scripted demo that needs no model.`;

// resolveProvider gives {name, format, baseURL, apiKey, model, keyVar,
// baseVar} or {error}: what is missing, said so a person can fix it.
export function resolveProvider(env = {}) {
  const get = (k) => (typeof env[k] === "string" ? env[k].trim() : "");
  const openai = kind("openai");
  const anthropic = kind("anthropic");
  const gemini = kind("gemini");
  const openaiKey = get(openai.key_var);
  const openaiBase = get(openai.base_var);
  const anthropicKey = get(anthropic.key_var);
  const anthropicBase = get(anthropic.base_var);
  const geminiKey = get(gemini.key_var);
  const geminiBase = get(gemini.base_var);
  let name = get("TOOLROUTE_PROVIDER");
  let model = get("TOOLROUTE_MODEL");
  if (name === "") {
    if (openaiKey || openaiBase) name = "openai";
    else if (anthropicKey) name = "anthropic";
    else if (geminiKey) name = "gemini";
    else return { error: NO_PROVIDER };
  }
  switch (name) {
    case "demo":
      // The module's scripted demo, which says in every reply that it is one.
      return { name, format: "openai", demo: true, baseURL: "(the module's demo model)", model: "toolroute-demo", keyVar: "", baseVar: "" };
    case "openai":
    case "responses": {
      const k = kind(name);
      let baseURL = openaiBase;
      if (!baseURL) {
        if (!openaiKey) return { error: needs(k) };
        baseURL = k.base_url;
      }
      if (!model) model = !baseURL.includes("api.openai.com") ? DEFAULT_LOCAL_MODEL : k.model;
      return { name, format: k.format, baseURL, apiKey: openaiKey, model, keyVar: k.key_var, baseVar: k.base_var };
    }
    case "anthropic": {
      const k = anthropic;
      if (!anthropicKey) return { error: needs(k) };
      return { name, format: k.format, baseURL: anthropicBase || k.base_url, apiKey: anthropicKey, model: model || k.model, keyVar: k.key_var, baseVar: k.base_var };
    }
    case "gemini": {
      const k = gemini;
      if (!geminiKey && !geminiBase) return { error: needs(k) };
      return { name, format: k.format, baseURL: geminiBase || k.base_url, apiKey: geminiKey, model: model || k.model, keyVar: k.key_var, baseVar: k.base_var };
    }
  }
  return { error: `unknown TOOLROUTE_PROVIDER ${JSON.stringify(name)}: use ${KIND_NAMES.slice(0, -1).join(", ")} or ${KIND_NAMES.at(-1)}` };
}

// describeProvider is the provider for people, as the Go program writes it.
export function describeProvider(p) {
  return p.error ? "no model provider" : `${p.name} at ${p.baseURL}, model ${p.model}`;
}

// hint adds to a failed turn's message what to check, as the Go program's
// ProviderInfo.Hint does, naming the worker's secrets and variables.
export function hint(p, msg) {
  if (p.error) return msg;
  if (/HTTP 40[13]\b/.test(msg)) return `${msg} (check the ${p.keyVar} secret)`;
  if (/HTTP 404\b/.test(msg)) return `${msg} (the model is ${JSON.stringify(p.model)}: choose another with the TOOLROUTE_MODEL variable)`;
  if (msg.includes("could not be reached") && p.baseVar) return `${msg} (is the server at ${p.baseURL} running? set the ${p.baseVar} variable to change it)`;
  return msg;
}

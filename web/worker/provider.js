// The worker's model provider, from its variables and secrets, chosen as
// the Go program chooses it (internal/app/provider.go): TOOLROUTE_PROVIDER, or
// the provider whose key is set (OpenAI first, then Anthropic, then Gemini;
// the Responses API only when named, as it shares OpenAI's variables); the
// model: TOOLROUTE_MODEL or the provider's default.

export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
export const DEFAULT_RESPONSES_MODEL = "gpt-5.4-mini";
export const DEFAULT_GEMINI_MODEL = "gemini-3.5-flash";
export const DEFAULT_LOCAL_MODEL = "llama3.2";

// NO_PROVIDER says how to give the worker a provider.
export const NO_PROVIDER = `no model provider is configured. Give the worker one of these secrets (wrangler secret put NAME):
  OPENAI_API_KEY      for OpenAI (and the OPENAI_BASE_URL variable for another OpenAI-compatible service)
  ANTHROPIC_API_KEY   for Anthropic (and ANTHROPIC_BASE_URL to change its address)
  GEMINI_API_KEY      for Gemini (and GEMINI_BASE_URL to change its address)
or the OPENAI_BASE_URL variable alone for an OpenAI-compatible server that needs no key;
then pick the model with the TOOLROUTE_MODEL variable. TOOLROUTE_PROVIDER=responses speaks OpenAI's Responses API
with the OpenAI secret and variable; TOOLROUTE_PROVIDER=demo plays a scripted demo that needs no model.`;

// resolveProvider gives {name, format, baseURL, apiKey, model, keyVar,
// baseVar} or {error}: what is missing, said so a person can fix it.
export function resolveProvider(env = {}) {
  const get = (k) => (typeof env[k] === "string" ? env[k].trim() : "");
  const openaiKey = get("OPENAI_API_KEY");
  const openaiBase = get("OPENAI_BASE_URL");
  const anthropicKey = get("ANTHROPIC_API_KEY");
  const anthropicBase = get("ANTHROPIC_BASE_URL");
  const geminiKey = get("GEMINI_API_KEY");
  const geminiBase = get("GEMINI_BASE_URL");
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
      let baseURL = openaiBase;
      if (!baseURL) {
        if (!openaiKey) return { error: `TOOLROUTE_PROVIDER=${name} needs the OPENAI_API_KEY secret, or the OPENAI_BASE_URL variable for an OpenAI-compatible server` };
        baseURL = "https://api.openai.com/v1";
      }
      if (!model) model = !baseURL.includes("api.openai.com") ? DEFAULT_LOCAL_MODEL : name === "responses" ? DEFAULT_RESPONSES_MODEL : DEFAULT_OPENAI_MODEL;
      return { name, format: name, baseURL, apiKey: openaiKey, model, keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" };
    }
    case "anthropic": {
      if (!anthropicKey) return { error: "TOOLROUTE_PROVIDER=anthropic needs the ANTHROPIC_API_KEY secret" };
      return { name, format: "anthropic", baseURL: anthropicBase || "https://api.anthropic.com", apiKey: anthropicKey, model: model || DEFAULT_ANTHROPIC_MODEL, keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL" };
    }
    case "gemini": {
      if (!geminiKey && !geminiBase) return { error: "TOOLROUTE_PROVIDER=gemini needs the GEMINI_API_KEY secret, or the GEMINI_BASE_URL variable for a server that takes no key" };
      return { name, format: "gemini", baseURL: geminiBase || "https://generativelanguage.googleapis.com", apiKey: geminiKey, model: model || DEFAULT_GEMINI_MODEL, keyVar: "GEMINI_API_KEY", baseVar: "GEMINI_BASE_URL" };
    }
  }
  return { error: `unknown TOOLROUTE_PROVIDER ${JSON.stringify(name)}: use openai, anthropic, responses, gemini or demo` };
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

// The host-native tools the page can run itself: the config group of the Go
// host (host/builtin/config.go) over the UI store's settings. Other
// host-native tools of the catalogue fail with the host's "no
// implementation" error, which the model reads.

export const ENV_PREFIX = "env.";

const SETTINGS = [
  { key: "model", description: "The model the chat uses." },
  { key: "provider", description: "Where model calls go: server, openai or anthropic." },
];

const ENV_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function toolError(type, message) {
  return Object.assign(new Error(message), { type });
}

// nativeTools gives {name: async (input) => string}. effective() gives the
// provider's label and model in use.
export function nativeTools(store, effective, onEnvChange = () => {}) {
  return {
    async list_settings() {
      const s = await store.settings();
      const eff = effective();
      const defaults = { model: eff.model, provider: "server" };
      return SETTINGS.map(({ key, description }) => {
        const v = s[key] ? s[key] : `${defaults[key]} (default)`;
        return `- ${key} = ${v}: ${description}`;
      }).join("\n");
    },
    async set_setting(input) {
      const key = input?.key, value = String(input?.value ?? "");
      if (!SETTINGS.some((x) => x.key === key)) {
        throw toolError("not_found", `no setting ${JSON.stringify(key)}: use one of ${SETTINGS.map((x) => x.key).join(", ")}`);
      }
      if (key === "provider" && value && !["server", "openai", "anthropic"].includes(value)) {
        throw toolError("invalid_arguments", "provider must be server, openai or anthropic");
      }
      await store.setSettings({ [key]: value || null });
      return value ? `${key} is now ${value}.` : `${key} restored to its default.`;
    },
    async list_env_vars() {
      const s = await store.settings();
      const names = Object.keys(s).filter((k) => k.startsWith(ENV_PREFIX)).map((k) => k.slice(ENV_PREFIX.length)).sort();
      return names.length === 0 ? "No environment variables are set for tools." : "Set: " + names.join(", ");
    },
    async set_env_var(input) {
      const name = String(input?.name ?? ""), value = String(input?.value ?? "");
      if (!ENV_RE.test(name)) {
        throw toolError("invalid_arguments", `${JSON.stringify(name)} is not a variable name: use letters, digits and _, not starting with a digit`);
      }
      await store.setSettings({ [ENV_PREFIX + name]: value || null });
      await onEnvChange();
      return value ? `${name} set.` : `${name} removed.`;
    },
  };
}

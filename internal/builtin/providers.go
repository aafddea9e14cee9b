package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/module"
)

// Setting keys of the config group's records: provider.NAME and agent.NAME
// hold a ProviderRecord and an AgentRecord as JSON; the provider setting
// names the stored provider model calls go to ("" for the host's own).
const (
	ProviderPrefix     = "provider."
	AgentPrefix        = "agent."
	ProviderSettingKey = "provider"
)

// Formats are the wire formats a stored provider may speak.
var Formats = []string{"openai", "anthropic", "responses", "gemini"}

// DefaultBaseURLs are each format's API root when a provider gives none.
var DefaultBaseURLs = map[string]string{
	"openai":    "https://api.openai.com/v1",
	"responses": "https://api.openai.com/v1",
	"anthropic": "https://api.anthropic.com",
	"gemini":    "https://generativelanguage.googleapis.com",
}

// ProviderRecord is a stored model provider, in every host's store: its
// wire format, API root and the name of the secret holding its key (a
// variable of env.NAME, set by the user or with manage_env_var), never the
// key itself; its models and the default one.
type ProviderRecord struct {
	Name         string   `json:"name"`
	Format       string   `json:"format"`
	BaseURL      string   `json:"base_url"`
	KeySecret    string   `json:"key_secret"`
	Models       []string `json:"models"`
	DefaultModel string   `json:"default_model"`
}

// ProviderState is a ProviderRecord as providers.* answer it: whether its
// key's secret is set and whether model calls go to it now.
type ProviderState struct {
	ProviderRecord
	KeySet bool `json:"key_set"`
	Active bool `json:"active"`
}

// AgentRecord is a stored agent, in every host's store: a name, its system
// prompt, its model ("" for the session's) and the tool groups it may load
// (none listed: every group).
type AgentRecord struct {
	Name         string   `json:"name"`
	SystemPrompt string   `json:"system_prompt"`
	Model        string   `json:"model"`
	Groups       []string `json:"groups"`
	// ToolBudget is the most tokens of tool schemas one of its model calls
	// may send; 0 keeps the session's (the tool_budget setting).
	ToolBudget int `json:"tool_budget,omitempty"`
}

// MaxToolBudget bounds an agent's tool budget: more than any catalogue
// needs.
const MaxToolBudget = 1_000_000

// checkName asks the module whether name may be a name of the kind op
// checks (tool_name, agent_name...; wasm/ABI.md, toolroute_check), and
// gives its refusal as the tool's error.
func checkName(ctx context.Context, op, name string) error {
	return checked(ctx, op, struct {
		Name string `json:"name"`
	}{name}, nil)
}

// checked asks the module whether op's arguments pass (module.CheckArgs):
// its refusal is the tool's error, with the type it gives.
func checked(ctx context.Context, op string, args, into any) error {
	err := module.CheckArgs(ctx, op, args, into)
	var r *module.Refused
	if errors.As(err, &r) {
		return &host.ToolError{Type: r.Type, Message: r.Message}
	}
	return err
}

// MaxModels bounds a provider's model list (OpenAI's has about a hundred).
const MaxModels = 500

// MaxAgentPrompt bounds an agent's system prompt.
const MaxAgentPrompt = 20000

func invalid(format string, a ...any) error {
	return &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &host.ToolError{Type: "not_found", Message: fmt.Sprintf(format, a...)}
}

// CheckProvider has the module check a provider record (wasm/ABI.md,
// toolroute_check's provider_name and provider_record) and fills in its
// defaults: the format's base URL, no trailing slash.
func CheckProvider(ctx context.Context, p *ProviderRecord) error {
	if err := checkName(ctx, "provider_name", p.Name); err != nil {
		return err
	}
	var out struct {
		BaseURL string `json:"base_url"`
	}
	if err := checked(ctx, "provider_record", struct {
		Name      string `json:"name"`
		Format    string `json:"format"`
		BaseURL   string `json:"base_url"`
		KeySecret string `json:"key_secret"`
	}{p.Name, p.Format, p.BaseURL, p.KeySecret}, &out); err != nil {
		return err
	}
	p.BaseURL = out.BaseURL
	if p.Models == nil {
		p.Models = []string{}
	}
	return nil
}

// checkModel checks a model's name as the hosts do.
func checkModel(m string) error {
	if strings.TrimSpace(m) == "" || len(m) > 200 || strings.ContainsAny(m, " \t\r\n") {
		return invalid("%q is not a model name: give the provider's id for it, such as gpt-4.1-mini", m)
	}
	return nil
}

// records reads the stored records of one prefix, in name order.
func records[T any](ctx context.Context, db *store.DB, prefix string) ([]T, error) {
	set, err := db.Settings(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(set))
	for _, s := range set {
		var v T
		if json.Unmarshal([]byte(s.Value), &v) == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

func record[T any](ctx context.Context, db *store.DB, key string) (T, bool, error) {
	var v T
	s, ok, err := db.Setting(ctx, key)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return v, false, nil
	}
	return v, true, nil
}

func putRecord(ctx context.Context, db *store.DB, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return db.SetSetting(ctx, key, string(b))
}

// StoredProvider reads the stored provider name, with its key's value ("" if
// its secret is unset or it names none), for a host that calls it.
func StoredProvider(ctx context.Context, db *store.DB, name string) (ProviderRecord, string, bool, error) {
	p, ok, err := record[ProviderRecord](ctx, db, ProviderPrefix+name)
	if err != nil || !ok {
		return p, "", ok, err
	}
	key := ""
	if p.KeySecret != "" {
		key, _, err = db.Setting(ctx, EnvPrefix+p.KeySecret)
	}
	return p, key, true, err
}

// providerOps are the config group's providers.*, models.* and agents.*
// operations over the store.
func providerOps(d Deps) host.HostOps {
	state := func(ctx context.Context, p ProviderRecord) (ProviderState, error) {
		s := ProviderState{ProviderRecord: p}
		if p.KeySecret != "" {
			_, ok, err := d.Store.Setting(ctx, EnvPrefix+p.KeySecret)
			if err != nil {
				return s, err
			}
			s.KeySet = ok
		}
		active, _, err := d.Store.Setting(ctx, ProviderSettingKey)
		s.Active = active == p.Name
		return s, err
	}
	get := func(ctx context.Context, name string) (ProviderRecord, error) {
		p, ok, err := record[ProviderRecord](ctx, d.Store, ProviderPrefix+name)
		if err != nil {
			return p, err
		}
		if !ok {
			return p, notFound("no provider %q: list_providers lists them", name)
		}
		if p.Models == nil {
			p.Models = []string{}
		}
		return p, nil
	}
	save := func(ctx context.Context, p ProviderRecord) (any, error) {
		if err := putRecord(ctx, d.Store, ProviderPrefix+p.Name, p); err != nil {
			return nil, err
		}
		return state(ctx, p)
	}
	type fields struct {
		Name      string  `json:"name"`
		Format    *string `json:"format"`
		BaseURL   *string `json:"base_url"`
		KeySecret *string `json:"key_secret"`
	}
	type modelArgs struct {
		Provider string `json:"provider"`
		Model    string `json:"model"`
	}
	withModel := func(in json.RawMessage) (modelArgs, error) {
		a, err := args[modelArgs](in)
		if err == nil {
			a.Model = strings.TrimSpace(a.Model)
			err = checkModel(a.Model)
		}
		return a, err
	}
	// providerModel reads a models.* call's arguments and its provider.
	providerModel := func(ctx context.Context, in json.RawMessage) (ProviderRecord, modelArgs, error) {
		a, err := withModel(in)
		if err != nil {
			return ProviderRecord{}, a, err
		}
		p, err := get(ctx, a.Provider)
		return p, a, err
	}
	return host.HostOps{
		"providers.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			ps, err := records[ProviderRecord](ctx, d.Store, ProviderPrefix)
			if err != nil {
				return nil, err
			}
			out := make([]ProviderState, 0, len(ps))
			for _, p := range ps {
				if p.Models == nil {
					p.Models = []string{}
				}
				s, err := state(ctx, p)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
			return out, nil
		},
		"providers.create": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[fields](in)
			if err != nil {
				return nil, err
			}
			p := ProviderRecord{Name: a.Name}
			for _, f := range []struct {
				from *string
				to   *string
			}{{a.Format, &p.Format}, {a.BaseURL, &p.BaseURL}, {a.KeySecret, &p.KeySecret}} {
				if f.from != nil {
					*f.to = strings.TrimSpace(*f.from)
				}
			}
			if err := CheckProvider(ctx, &p); err != nil {
				return nil, err
			}
			if _, ok, err := d.Store.Setting(ctx, ProviderPrefix+p.Name); err != nil || ok {
				if err == nil {
					err = invalid("a provider %q exists: update_provider changes it", p.Name)
				}
				return nil, err
			}
			return save(ctx, p)
		},
		"providers.update": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[fields](in)
			if err != nil {
				return nil, err
			}
			p, err := get(ctx, a.Name)
			if err != nil {
				return nil, err
			}
			if a.Format != nil {
				p.Format = strings.TrimSpace(*a.Format)
			}
			if a.BaseURL != nil {
				p.BaseURL = strings.TrimSpace(*a.BaseURL)
			}
			if a.KeySecret != nil {
				p.KeySecret = strings.TrimSpace(*a.KeySecret)
			}
			if err := CheckProvider(ctx, &p); err != nil {
				return nil, err
			}
			return save(ctx, p)
		},
		"providers.remove": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name string `json:"name"`
			}](in)
			if err != nil {
				return nil, err
			}
			p, err := get(ctx, a.Name)
			if err != nil {
				return nil, err
			}
			if active, _, err := d.Store.Setting(ctx, ProviderSettingKey); err != nil || active == p.Name {
				if err == nil {
					err = invalid("model calls go to %q now: set_config provider to another (or empty) first", p.Name)
				}
				return nil, err
			}
			if err := d.Store.DeleteSetting(ctx, ProviderPrefix+p.Name); err != nil {
				return nil, err
			}
			return p, nil
		},
		"models.list": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[modelArgs](in)
			if err != nil {
				return nil, err
			}
			p, err := get(ctx, a.Provider)
			if err != nil {
				return nil, err
			}
			return state(ctx, p)
		},
		"models.fetch": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[modelArgs](in)
			if err != nil {
				return nil, err
			}
			p, key, _, err := StoredProvider(ctx, d.Store, a.Provider)
			if err != nil {
				return nil, err
			}
			if p.Name == "" {
				return nil, notFound("no provider %q: list_providers lists them", a.Provider)
			}
			if p.KeySecret != "" && key == "" {
				return nil, invalid("%s's key, the secret %s, is not set: the user sets it (or manage_env_var does, asking first)", p.Name, p.KeySecret)
			}
			ids, err := FetchModels(ctx, d.ModelLists, p.Format, p.BaseURL, key)
			if err != nil {
				return nil, err
			}
			added := 0
			for _, id := range ids {
				if !slices.Contains(p.Models, id) {
					added++
				}
			}
			p.Models = ids
			if len(p.Models) > MaxModels {
				p.Models = p.Models[:MaxModels]
			}
			s, err := save(ctx, p)
			if err != nil {
				return nil, err
			}
			return struct {
				ProviderState
				Fetched int `json:"fetched"`
				New     int `json:"new"`
			}{s.(ProviderState), len(ids), added}, nil
		},
		"models.add": func(ctx context.Context, in json.RawMessage) (any, error) {
			p, a, err := providerModel(ctx, in)
			if err != nil {
				return nil, err
			}
			if slices.Contains(p.Models, a.Model) {
				return nil, invalid("%s already has the model %q", p.Name, a.Model)
			}
			if len(p.Models) >= MaxModels {
				return nil, invalid("%s has %d models, the most a provider keeps: delete_model some first", p.Name, MaxModels)
			}
			p.Models = append(p.Models, a.Model)
			return save(ctx, p)
		},
		"models.remove": func(ctx context.Context, in json.RawMessage) (any, error) {
			p, a, err := providerModel(ctx, in)
			if err != nil {
				return nil, err
			}
			i := slices.Index(p.Models, a.Model)
			if i < 0 {
				return nil, notFound("%s has no model %q: list_models lists them", p.Name, a.Model)
			}
			p.Models = slices.Delete(p.Models, i, i+1)
			if p.DefaultModel == a.Model {
				p.DefaultModel = ""
			}
			return save(ctx, p)
		},
		"models.setDefault": func(ctx context.Context, in json.RawMessage) (any, error) {
			p, a, err := providerModel(ctx, in)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(p.Models, a.Model) {
				if len(p.Models) >= MaxModels {
					return nil, invalid("%s has %d models, the most a provider keeps: delete_model some first", p.Name, MaxModels)
				}
				p.Models = append(p.Models, a.Model)
			}
			p.DefaultModel = a.Model
			return save(ctx, p)
		},
		"agents.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			return records[AgentRecord](ctx, d.Store, AgentPrefix)
		},
		"agents.update": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name         string    `json:"name"`
				SystemPrompt *string   `json:"system_prompt"`
				Model        *string   `json:"model"`
				Groups       *[]string `json:"groups"`
				ToolBudget   *float64  `json:"tool_budget"`
			}](in)
			if err != nil {
				return nil, err
			}
			if err := checkName(ctx, "agent_name", a.Name); err != nil {
				return nil, err
			}
			ag, found, err := record[AgentRecord](ctx, d.Store, AgentPrefix+a.Name)
			if err != nil {
				return nil, err
			}
			ag.Name = a.Name
			if a.SystemPrompt != nil {
				ag.SystemPrompt = strings.TrimSpace(*a.SystemPrompt)
			}
			if !found && ag.SystemPrompt == "" {
				return nil, invalid("a new agent needs a system_prompt: say who it is and what it does")
			}
			if len([]rune(ag.SystemPrompt)) > MaxAgentPrompt {
				return nil, invalid("the system_prompt is over %d characters: shorten it", MaxAgentPrompt)
			}
			if a.Model != nil {
				ag.Model = strings.TrimSpace(*a.Model)
				if ag.Model != "" {
					if err := checkModel(ag.Model); err != nil {
						return nil, err
					}
				}
			}
			if a.Groups != nil {
				known, err := d.groups(ctx)
				if err != nil {
					return nil, err
				}
				ag.Groups = []string{}
				for _, g := range *a.Groups {
					if !slices.Contains(known, g) {
						return nil, notFound("no tool group %q: use some of %s", g, strings.Join(known, ", "))
					}
					if !slices.Contains(ag.Groups, g) {
						ag.Groups = append(ag.Groups, g)
					}
				}
			}
			if ag.Groups == nil {
				ag.Groups = []string{}
			}
			if a.ToolBudget != nil {
				b := *a.ToolBudget
				if b < 0 || b > MaxToolBudget || b != float64(int(b)) {
					return nil, invalid("tool_budget must be a whole number of tokens from 0 (the session's budget) to %d", MaxToolBudget)
				}
				ag.ToolBudget = int(b)
			}
			if err := putRecord(ctx, d.Store, AgentPrefix+ag.Name, ag); err != nil {
				return nil, err
			}
			return struct {
				AgentRecord
				Created bool `json:"created"`
			}{ag, !found}, nil
		},
		"agents.remove": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name string `json:"name"`
			}](in)
			if err != nil {
				return nil, err
			}
			ag, ok, err := record[AgentRecord](ctx, d.Store, AgentPrefix+a.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, notFound("no agent %q: list_agents lists them", a.Name)
			}
			return ag, d.Store.DeleteSetting(ctx, AgentPrefix+a.Name)
		},
	}
}

// groups are the catalogue's tool groups, in its order.
func (d Deps) groups(ctx context.Context) ([]string, error) {
	if d.Tools == nil {
		return nil, errors.New("builtin: no catalogue to check groups against")
	}
	states, err := d.Tools(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range states {
		if s.Group != "" && !slices.Contains(out, s.Group) {
			out = append(out, s.Group)
		}
	}
	return out, nil
}

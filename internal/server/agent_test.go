package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
)

// A session started with a stored agent (POST /api/sessions {"agent"})
// says so, and its turns use the agent's prompt and allowlist; /clear keeps
// the agent; an agent that is not stored is refused with what to do.
func TestSessionWithAgent(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("I read PDFs."), fakemodel.Text("Still reading PDFs."))
	defer model.Close()
	srv, a := startApp(t, t.TempDir(), model, server.Options{Token: token})
	rec, _ := json.Marshal(builtin.AgentRecord{Name: "reader", SystemPrompt: "You are reader.", Groups: []string{"pdf"}})
	if err := a.Store.SetSetting(context.Background(), builtin.AgentPrefix+"reader", string(rec)); err != nil {
		t.Fatal(err)
	}

	resp := post(t, srv, "/api/sessions", `{"agent":"nobody"}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `no such agent \"nobody\": create it with update_agent (config group) or create_agent; stored agents: reader`) {
		t.Errorf("an unknown agent: HTTP %d %s", resp.StatusCode, body)
	}

	var created map[string]any
	resp = post(t, srv, "/api/sessions", `{"agent":"reader"}`)
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created["agent"] != "reader" {
		t.Fatalf("create: HTTP %d %v", resp.StatusCode, created)
	}
	id := created["id"].(string)
	turn(t, srv, id, "Who are you?")
	var got map[string]any
	get(t, srv, "/api/sessions/"+id, http.StatusOK, &got)
	if got["agent"] != "reader" {
		t.Errorf("the session = %v", got)
	}
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(model.Requests()[0].Body, &req)
	if p := req.Messages[0].Content; !strings.HasPrefix(p, "You are reader.") || !strings.Contains(p, "- pdf: ") || strings.Contains(p, "- config: ") {
		t.Errorf("the system prompt:\n%s", p)
	}

	// The catalogue of the session is the agent's: its prompt, its groups.
	var cat struct {
		SystemPrompt string `json:"system_prompt"`
		Groups       []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	get(t, srv, "/api/catalogue?session="+id, http.StatusOK, &cat)
	if !strings.HasPrefix(cat.SystemPrompt, "You are reader.") || len(cat.Groups) != 1 || cat.Groups[0].Name != "pdf" {
		t.Errorf("the session's catalogue: %+v", cat)
	}

	var cleared map[string]any
	resp = post(t, srv, "/api/sessions/"+id+"/clear", `{}`)
	json.NewDecoder(resp.Body).Decode(&cleared)
	resp.Body.Close()
	if cleared["agent"] != "reader" || cleared["id"] == id {
		t.Errorf("cleared: %v", cleared)
	}
	// A deleted session forgets its agent.
	if resp := do(t, "DELETE", srv.URL+"/api/sessions/"+id, ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: HTTP %d", resp.StatusCode)
	}
	if name, _ := a.SessionAgent(context.Background(), id); name != "" {
		t.Errorf("a deleted session keeps agent %q", name)
	}
}

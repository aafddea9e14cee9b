package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/browser"
	"github.com/toolroute/toolroute/registry"
)

// builtinPermissions is what every built-in tool of every host declares in
// requiredPermissions, audited against what it does. A tool that writes
// outside the sandbox folder, sends, deletes or shares must say so, or it
// runs without asking (registry.DefaultDecision); a tool that reaches
// addresses the model chooses says network; a tool known to act on nothing
// says read, which toolroute mcp tells its clients as readOnlyHint. A tool
// added, removed or changed fails TestBuiltinPermissions until this table
// says what it does.
var builtinPermissions = map[string][]string{
	// Meta-tools and the core tools.
	"load_tool_group":   nil,
	"search_tools":      nil,
	"unload_tool_group": nil,
	"load_skill":        nil,
	"get_current_time":  {"read"},
	"read_file":         {"read"},
	"write_file":        nil, // the sandbox folder only: it changes files there, so it is not read-only
	"http_request":      {"network"},
	"webfetch":          {"read", "network"},
	"js_eval":           {"run_code", "secrets"},
	"save_memory":       {"write", "memories"},
	"search_history":    {"read", "history"},
	"create_agent":      {"write", "agents", "network"},       // it stores a new agent, and its model calls go out
	"exec":              {"write", "run_code", "unsandboxed"}, // it asks before every run
	"browser":           {"read", "write", "network"},

	// config
	"list_providers":    {"read", "providers"},
	"create_provider":   {"write", "providers"},
	"update_provider":   {"write", "providers"},
	"delete_provider":   {"delete", "providers"},
	"list_models":       {"read", "models"},
	"fetch_models":      {"read", "models"},
	"set_default_model": {"write", "models"},
	"add_model":         {"write", "models"},
	"delete_model":      {"delete", "models"},
	"list_agents":       {"read", "agents"},
	"update_agent":      {"write", "agents"},
	"delete_agent":      {"delete", "agents"},
	"get_config":        {"read", "settings", "env"},
	"set_config":        {"write", "settings"},
	"manage_env_var":    {"write", "env"},
	"list_tool_states":  {"read", "tools"},
	"set_tool_enabled":  {"write", "tools"},

	// js_tool_management
	"create_js_tool":  {"write", "secrets", "toolfiles"},
	"list_user_tools": {"read", "toolfiles"},
	"update_js_tool":  {"write", "toolfiles"},
	"delete_js_tool":  {"write", "toolfiles"},

	// scheduled_tasks
	"schedule_task":         {"write", "schedules"},
	"list_scheduled_tasks":  {"read", "schedules"},
	"run_scheduled_task":    {"write", "schedules"},
	"update_scheduled_task": {"write", "schedules"},
	"delete_scheduled_task": {"delete", "schedules"},

	// pdf: a path in the sandbox folder or a URL
	"pdf_info":         {"read", "network"},
	"pdf_extract_text": {"read", "network"},
	"pdf_render_page":  {"read", "network"},

	// google_calendar
	"calendar_list_calendars": {"google", "read"},
	"calendar_list_events":    {"google", "read"},
	"calendar_get_event":      {"google", "read"},
	"calendar_create_event":   {"google", "write", "send"},
	"calendar_update_event":   {"google", "write", "send"},
	"calendar_delete_event":   {"google", "delete", "send"},
	"calendar_free_busy":      {"google", "read"},
	"calendar_quick_add":      {"google", "write", "send"},

	// google_contacts
	"contacts_search": {"google", "read"},
	"contacts_list":   {"google", "read"},
	"contacts_get":    {"google", "read"},
	"contacts_create": {"google", "write"},
	"contacts_update": {"google", "write"},
	"contacts_delete": {"google", "delete"},

	// google_docs
	"docs_create":       {"google", "write"},
	"docs_read":         {"google", "read"},
	"docs_append_text":  {"google", "write"},
	"docs_insert_text":  {"google", "write"},
	"docs_replace_text": {"google", "write"},
	"docs_format_text":  {"google", "write"},

	// google_drive
	"drive_list_files":       {"google", "read"},
	"drive_search":           {"google", "read"},
	"drive_get_file":         {"google", "read"},
	"drive_read_file":        {"google", "read"},
	"drive_upload_text_file": {"google", "write"},
	"drive_create_folder":    {"google", "write"},
	"drive_share":            {"google", "share"},
	"drive_list_permissions": {"google", "read"},
	"drive_move":             {"google", "write"},
	"drive_rename":           {"google", "write"},
	"drive_copy":             {"google", "write"},
	"drive_delete":           {"google", "delete"},

	// google_forms
	"forms_create":         {"google", "write"},
	"forms_get":            {"google", "read"},
	"forms_add_question":   {"google", "write"},
	"forms_update_info":    {"google", "write"},
	"forms_delete_item":    {"google", "delete"},
	"forms_list_responses": {"google", "read"},
	"forms_get_response":   {"google", "read"},

	// google_gmail
	"gmail_search":        {"google", "read"},
	"gmail_read_message":  {"google", "read"},
	"gmail_get_thread":    {"google", "read"},
	"gmail_send":          {"google", "send"},
	"gmail_reply":         {"google", "send"},
	"gmail_create_draft":  {"google", "write"},
	"gmail_list_drafts":   {"google", "read"},
	"gmail_send_draft":    {"google", "send"},
	"gmail_modify_labels": {"google", "write"},
	"gmail_archive":       {"google", "write"},
	"gmail_mark_read":     {"google", "write"}, // it changes the messages' state
	"gmail_trash":         {"google", "delete"},

	// google_gmail_settings
	"gmail_list_filters":           {"google", "read"},
	"gmail_create_filter":          {"google", "write"},
	"gmail_delete_filter":          {"google", "delete"},
	"gmail_list_labels":            {"google", "read"},
	"gmail_create_label":           {"google", "write"},
	"gmail_update_label":           {"google", "write"},
	"gmail_delete_label":           {"google", "delete"},
	"gmail_get_forwarding":         {"google", "read"},
	"gmail_add_forwarding_address": {"google", "write", "share"},
	"gmail_update_auto_forwarding": {"google", "write", "share"},
	"gmail_get_signature":          {"google", "read"},
	"gmail_update_signature":       {"google", "write"},
	"gmail_get_vacation":           {"google", "read"},
	"gmail_update_vacation":        {"google", "write", "send"},

	// google_sheets
	"sheets_create":       {"google", "write"},
	"sheets_get_info":     {"google", "read"},
	"sheets_read_range":   {"google", "read"},
	"sheets_update_range": {"google", "write"},
	"sheets_append_rows":  {"google", "write"},
	"sheets_clear_range":  {"google", "delete"},
	"sheets_add_sheet":    {"google", "write"},
	"sheets_format_range": {"google", "write"},

	// google_slides
	"slides_create":          {"google", "write"},
	"slides_read":            {"google", "read"},
	"slides_add_slide":       {"google", "write"},
	"slides_set_text":        {"google", "write"},
	"slides_replace_text":    {"google", "write"},
	"slides_delete_slide":    {"google", "delete"},
	"slides_duplicate_slide": {"google", "write"},
	"slides_move_slide":      {"google", "write"},

	// google_tasks
	"tasks_list_task_lists":  {"google", "read"},
	"tasks_create_task_list": {"google", "write"}, // it creates a list in the user's account
	"tasks_list":             {"google", "read"},
	"tasks_get":              {"google", "read"},
	"tasks_create":           {"google", "write"},
	"tasks_update":           {"google", "write"},
	"tasks_complete":         {"google", "write"},
	"tasks_delete":           {"google", "delete"},
}

// TestBuiltinPermissions holds every built-in tool the Go program offers,
// with exec and the browser on and the meta-tools settings add, to
// builtinPermissions: a tool missing from the table, a table
// entry no host offers, and a tool whose requiredPermissions differ all
// fail. The browser and the worker offer the same manifests and the same
// pdf group (assets/pdf_tools.json), so the table holds for them too.
func TestBuiltinPermissions(t *testing.T) {
	cfg := testConfig(t)
	cfg.Exec, cfg.Browser = true, true
	a := open(t, cfg)
	// Every tool of the catalogue, load_tool_group and load_skill among
	// them, and the meta-tools settings add.
	reg, _ := registry.Build(a.Host.Catalogue())
	tools := append(reg.Tools(), registry.SearchToolsTool(), registry.UnloadToolGroupTool())
	if !slices.ContainsFunc(tools, func(tl registry.Tool) bool { return tl.Name == browser.Name }) {
		// Without Chromium the program leaves the browser out; its
		// definition is checked all the same.
		tools = append(tools, browser.Definition())
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		if seen[tl.Name] {
			continue
		}
		seen[tl.Name] = true
		want, ok := builtinPermissions[tl.Name]
		if !ok {
			t.Errorf("%s (from %s) is not in builtinPermissions: add it with what it does", tl.Name, tl.Origin.Source)
			continue
		}
		if diff := cmp.Diff(want, tl.RequiredPermissions); diff != "" {
			t.Errorf("%s's requiredPermissions (-audited +declared):\n%s", tl.Name, diff)
		}
	}
	var stale []string
	for name := range builtinPermissions {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	if len(stale) > 0 {
		t.Errorf("builtinPermissions names tools no host offers: %s", strings.Join(stale, ", "))
	}
}

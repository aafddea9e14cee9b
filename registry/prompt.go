package registry

import (
	"strings"
	"unicode"
)

// MaxListedDescription is the longest description, in characters (runes),
// that the system prompt lists for a group or a skill; a longer one is cut to
// MaxListedDescription-1 characters followed by "…". Line breaks and runs of
// spaces become single spaces, so each entry stays one line.
const MaxListedDescription = 200

// sectionSeparator joins the base prompt and each section.
const sectionSeparator = "\n\n---\n\n"

// SystemPrompt assembles the system prompt: the base prompt, then the skills
// section when there are skills, then the tool group listing when any group
// has an enabled tool, joined by "\n\n---\n\n":
//
//	## Available Tool Groups
//
//	Use `load_tool_group` to load tools from a group before using them.
//
//	- name: description
//
// Nothing is added when there are no skills and no groups. A blank base prompt
// is left out.
func (r *Registry) SystemPrompt(base string) string {
	return r.systemPrompt(base, true)
}

// SystemPromptWithoutGroups is the system prompt without the tool group
// listing: for a request that lists the groups another way (the Responses
// API's namespaces, each with the listing's description).
func (r *Registry) SystemPromptWithoutGroups(base string) string {
	return r.systemPrompt(base, false)
}

// systemPrompt is the prompt for base, kept for the next call with the
// same base.
func (r *Registry) systemPrompt(base string, listGroups bool) string {
	m := r.memos()
	i := 0
	if listGroups {
		i = 1
	}
	m.mu.Lock()
	kept := m.prompt[i]
	m.mu.Unlock()
	if kept.ok && kept.base == base {
		return kept.text
	}
	text := r.buildSystemPrompt(base, listGroups)
	m.mu.Lock()
	m.prompt[i].base, m.prompt[i].text, m.prompt[i].ok = base, text, true
	m.mu.Unlock()
	return text
}

func (r *Registry) buildSystemPrompt(base string, listGroups bool) string {
	var sections []string
	if strings.TrimSpace(base) != "" {
		sections = append(sections, base)
	}
	if skills := r.SkillListing(); skills != "" {
		sections = append(sections, skills)
	}
	if groups := r.GroupListing(); groups != "" && listGroups {
		sections = append(sections, groups)
	}
	if len(sections) == 0 {
		return base
	}
	return strings.Join(sections, sectionSeparator)
}

// SkillListing is the system prompt's skills section, "## Available
// Skills" with a line for each skill, or "" when there are none.
func (r *Registry) SkillListing() string {
	return r.Memo(memoSkillListing, func() any { return r.skillListing() }).(string)
}

func (r *Registry) skillListing() string {
	if len(r.skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Available Skills\n\nUse `load_skill` to load a skill's instructions before following them.\n\n")
	for i, s := range r.skills {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + s.Name + ": " + listedDescription(s.Description))
	}
	return b.String()
}

// GroupListing is the system prompt's tool group listing, "## Available
// Tool Groups" with a line for each group that has an enabled tool, or ""
// when none has. A host that cannot write the system prompt (an MCP
// server's) puts it where the model reads it instead.
func (r *Registry) GroupListing() string {
	return r.Memo(memoGroupListing, func() any { return r.groupListing() }).(string)
}

func (r *Registry) groupListing() string {
	groups := r.availableGroups()
	if len(groups) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Available Tool Groups\n\nUse `load_tool_group` to load tools from a group before using them.\n\n")
	for i, g := range groups {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + g.Name + ": " + listedDescription(g.Description))
	}
	return b.String()
}

// ListedDescription is a description as the system prompt lists it: on
// one line, cut at MaxListedDescription characters.
func ListedDescription(s string) string { return listedDescription(s) }

// listedDescription puts a description on one line and cuts it at
// MaxListedDescription characters.
func listedDescription(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	runes := []rune(s)
	if len(runes) <= MaxListedDescription {
		return s
	}
	return strings.TrimRightFunc(string(runes[:MaxListedDescription-1]), unicode.IsSpace) + "…"
}

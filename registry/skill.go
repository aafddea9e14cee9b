package registry

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxSkillBytes is the largest SKILL.md the parser reads.
const MaxSkillBytes = 1 << 20

// ErrSkill is wrapped by every error ParseSkill returns.
var ErrSkill = errors.New("registry: bad skill")

// ParseSkill reads a skill in the Agent Skills format: a SKILL.md file whose
// YAML front matter, between lines of "---", gives its name and description,
// followed by the instructions, which become the skill's content. dir is the
// name of the folder holding the file: the skill's name must equal it.
//
// The front matter is read as the simple YAML the format uses: "key: value"
// lines with plain, single- or double-quoted values, and "|" or ">" block
// values; other keys (license, allowed-tools, metadata) are ignored, nested
// ones included.
func ParseSkill(dir string, text []byte) (Skill, error) {
	bad := func(format string, args ...any) (Skill, error) {
		return Skill{}, fmt.Errorf("%w: %s/SKILL.md: %s", ErrSkill, dir, fmt.Sprintf(format, args...))
	}
	if len(text) > MaxSkillBytes {
		return bad("the file is %d bytes; the limit is %d", len(text), MaxSkillBytes)
	}
	if !utf8.Valid(text) {
		return bad("the file is not UTF-8 text")
	}
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return bad("it must start with YAML front matter: a line of ---, then name: and description:, then ---")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return bad("the front matter has no closing --- line")
	}
	fields, err := frontMatter(lines[1:end])
	if err != nil {
		return bad("%v", err)
	}
	s := Skill{
		Name:        fields["name"],
		Description: fields["description"],
		Content:     strings.TrimSpace(strings.Join(lines[end+1:], "\n")),
	}
	switch {
	case s.Name == "":
		return bad("the front matter has no name")
	case s.Name != dir:
		return bad("its name %q must match its folder's name %q", s.Name, dir)
	case !validSkillName(s.Name):
		return bad("its name %q must be lowercase letters, digits and hyphens, at most 64 characters", s.Name)
	case strings.TrimSpace(s.Description) == "":
		return bad("the front matter has no description: say what the skill does and when to use it")
	case utf8.RuneCountInString(s.Description) > 1024:
		return bad("the description is over 1024 characters")
	case s.Content == "":
		return bad("it has no instructions after the front matter")
	}
	return s, nil
}

// frontMatter reads the top-level scalar keys of simple YAML.
func frontMatter(lines []string) (map[string]string, error) {
	fields := map[string]string{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // nested under a key we do not read
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("front matter line %d is not key: value: %q", i+2, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case value == "|" || value == ">" || strings.HasPrefix(value, "|-") || strings.HasPrefix(value, ">-"):
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			sep := "\n"
			if value[0] == '>' {
				sep = " "
			}
			value = strings.TrimSpace(strings.Join(block, sep))
		case strings.HasPrefix(value, `"`):
			s, err := strconv.Unquote(value)
			if err != nil {
				return nil, fmt.Errorf("front matter line %d: bad double-quoted value %s", i+2, value)
			}
			value = s
		case strings.HasPrefix(value, "'"):
			if len(value) < 2 || !strings.HasSuffix(value, "'") {
				return nil, fmt.Errorf("front matter line %d: unclosed single-quoted value %s", i+2, value)
			}
			value = strings.ReplaceAll(value[1:len(value)-1], "''", "'")
		default:
			if j := strings.Index(value, " #"); j >= 0 {
				value = strings.TrimSpace(value[:j])
			}
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("front matter key %q is given twice", key)
		}
		fields[key] = value
	}
	return fields, nil
}

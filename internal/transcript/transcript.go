// Package transcript replays the golden transcripts in testdata/transcripts:
// host-neutral recordings of the turn engine (a catalogue, events in, actions
// out) that every host replays, natively and through the wasm module.
//
// A transcript is a txtar archive:
//
//	what the transcript shows (the comment)
//	-- catalogue.json --   the registry set-up, a registry.Catalogue
//	-- manifests/NAME.json --  optional: a manifest added to the catalogue,
//	                           with source "NAME.js"
//	-- events.jsonl --     one session.Event per line
//	-- actions.jsonl --    the golden output, one line per action:
//	                       {"event":N,"action":{...}} or {"event":N,"error":"..."}
//
// The replay keeps the session's log the way a host does: every message an
// append action gives is added to it, and a start event without "history" is
// given that log; one with "history" makes that its log. A start event with "clear": true starts a new session (an
// empty log), as /clear does. Each start event begins a new turn.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/toolroute/toolroute/registry"
)

// File is one transcript.
type File struct {
	Path      string
	Comment   string
	Catalogue registry.Catalogue
	// CatalogueJSON is the catalogue as JSON, as a host sends it to the module.
	CatalogueJSON []byte
	Events        [][]byte
	Actions       []byte
	sections      []section
}

type section struct {
	name string
	data []byte
}

// Load reads and parses a transcript.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path}
	comment, sections := parseTxtar(data)
	f.Comment, f.sections = comment, sections
	var haveCatalogue bool
	for _, s := range sections {
		switch {
		case s.name == "catalogue.json":
			if err := json.Unmarshal(s.data, &f.Catalogue); err != nil {
				return nil, fmt.Errorf("%s: catalogue.json: %v", path, err)
			}
			haveCatalogue = true
		case strings.HasPrefix(s.name, "manifests/") && strings.HasSuffix(s.name, ".json"):
			file := strings.TrimPrefix(s.name, "manifests/")
			f.Catalogue.Manifests = append(f.Catalogue.Manifests, registry.CatalogueManifest{
				File: file, Text: string(s.data), Source: strings.TrimSuffix(file, ".json") + ".js"})
		case s.name == "events.jsonl":
			for _, line := range bytes.Split(s.data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					f.Events = append(f.Events, line)
				}
			}
		case s.name == "actions.jsonl":
			f.Actions = s.data
		}
	}
	if !haveCatalogue {
		return nil, fmt.Errorf("%s: no catalogue.json section", path)
	}
	if len(f.Events) == 0 {
		return nil, fmt.Errorf("%s: no events", path)
	}
	f.CatalogueJSON, err = json.Marshal(f.Catalogue)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Driver runs the engine for a replay: natively, or through a wasm module.
type Driver interface {
	// Build registers the catalogue (JSON, a registry.Catalogue).
	Build(catalogue []byte) error
	// NewTurn starts a new turn; events go to it until the next NewTurn.
	NewTurn() error
	// Handle feeds one event (JSON, a session.Event) and returns the actions
	// (a JSON array of session.Action), or the error the engine gave.
	Handle(event []byte) (actions []byte, err error)
}

// Replay runs the transcript's events through d and returns the output in the
// actions.jsonl form.
func (f *File) Replay(d Driver) ([]byte, error) {
	return f.replay(d, false)
}

// ReplaySessions replays the transcript as a host that names its sessions
// does (wasm/ABI.md, "Sessions"): a start event that continues the log is
// sent with the session's name, the fingerprint the last turn handed out
// and only the messages logged since, and again with the whole history
// when the engine answers need_history. The output leaves out the cache
// and need_history actions, so it must equal Replay's.
func (f *File) ReplaySessions(d Driver) ([]byte, error) {
	return f.replay(d, true)
}

func (f *File) replay(d Driver, sessions bool) ([]byte, error) {
	if err := d.Build(f.CatalogueJSON); err != nil {
		return nil, fmt.Errorf("build catalogue: %w", err)
	}
	var out bytes.Buffer
	var log []json.RawMessage
	// The session's name, and the state of its log the last turn left.
	session, fingerprint, covered := 1, "", 0
	for i, line := range f.Events {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("event %d is not a JSON object: %v", i, err)
		}
		if string(ev["clear"]) == "true" {
			log = nil
			delete(ev, "clear")
			session, fingerprint = session+1, ""
		}
		var full map[string]json.RawMessage // the event with the whole history
		if string(ev["type"]) == `"start"` {
			if err := d.NewTurn(); err != nil {
				return nil, fmt.Errorf("event %d: new turn: %w", i, err)
			}
			if h, given := ev["history"]; given {
				// The session's log is the history given, as a host's
				// store holds it, in a session of its own.
				log = nil
				if err := json.Unmarshal(h, &log); err != nil && string(h) != "null" {
					return nil, fmt.Errorf("event %d: history is not an array: %v", i, err)
				}
				session, fingerprint = session+1, ""
			} else {
				if len(log) > 0 {
					h, err := json.Marshal(log)
					if err != nil {
						return nil, err
					}
					ev["history"] = h
				}
				if sessions {
					ev["session"], _ = json.Marshal(fmt.Sprintf("s%d", session))
					if fingerprint != "" {
						full = maps.Clone(ev)
						ev["fingerprint"], _ = json.Marshal(fingerprint)
						delete(ev, "history")
						if len(log) > covered {
							ev["history"], _ = json.Marshal(log[covered:])
						}
					}
				}
			}
		}
		event, err := marshalNoEscape(ev)
		if err != nil {
			return nil, err
		}
		actions, err := d.Handle(event)
		if err == nil && full != nil && string(actions) == `[{"type":"need_history"}]` {
			if event, err = marshalNoEscape(full); err != nil {
				return nil, err
			}
			actions, err = d.Handle(event)
		}
		if err != nil {
			line, _ := json.Marshal(struct {
				Event int    `json:"event"`
				Error string `json:"error"`
			}{i, err.Error()})
			out.Write(line)
			out.WriteByte('\n')
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(actions, &list); err != nil {
			return nil, fmt.Errorf("event %d: actions are not a JSON array: %v", i, err)
		}
		for _, a := range list {
			var act struct {
				Type     string            `json:"type"`
				Messages []json.RawMessage `json:"messages"`
				Cache    struct {
					Fingerprint string `json:"fingerprint"`
					Messages    int    `json:"messages"`
				} `json:"cache"`
			}
			if err := json.Unmarshal(a, &act); err != nil {
				return nil, fmt.Errorf("event %d: action is not JSON: %v", i, err)
			}
			switch act.Type {
			case "cache":
				fingerprint, covered = act.Cache.Fingerprint, act.Cache.Messages
				continue
			case "need_history":
				continue
			case "append":
				log = append(log, act.Messages...)
			}
			fmt.Fprintf(&out, `{"event":%d,"action":%s}`+"\n", i, a)
		}
	}
	return out.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Rewrite writes the transcript back with new golden actions.
func (f *File) Rewrite(actions []byte) error {
	var b bytes.Buffer
	b.WriteString(f.Comment)
	wrote := false
	for _, s := range f.sections {
		data := s.data
		if s.name == "actions.jsonl" {
			data, wrote = actions, true
		}
		fmt.Fprintf(&b, "-- %s --\n", s.name)
		b.Write(data)
	}
	if !wrote {
		b.WriteString("-- actions.jsonl --\n")
		b.Write(actions)
	}
	f.Actions = actions
	return os.WriteFile(f.Path, b.Bytes(), 0o644)
}

// parseTxtar splits a txtar archive into its comment and sections.
func parseTxtar(data []byte) (string, []section) {
	var comment strings.Builder
	var sections []section
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(trimmed, []byte("-- ")) && bytes.HasSuffix(trimmed, []byte(" --")) && len(trimmed) > 6 {
			sections = append(sections, section{name: string(trimmed[3 : len(trimmed)-3])})
			continue
		}
		if len(sections) == 0 {
			comment.Write(line)
		} else {
			s := &sections[len(sections)-1]
			s.data = append(s.data, line...)
		}
	}
	return comment.String(), sections
}

// ReadArchive reads a txtar archive: its comment and its files by name (a
// name given twice keeps the last), for the other data of testdata/ that
// uses the format.
func ReadArchive(path string) (string, map[string][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	comment, sections := parseTxtar(data)
	files := make(map[string][]byte, len(sections))
	for _, s := range sections {
		files[s.name] = s.data
	}
	return comment, files, nil
}

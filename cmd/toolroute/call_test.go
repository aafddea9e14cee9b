package main

import (
	"testing"
	"time"
)

func TestConcerns(t *testing.T) {
	tests := []struct {
		name, problem, tool string
		want                bool
	}{
		{"its manifest", "/home/u/.config/toolroute/tools/shout.json: Missing corresponding .js file: shout.js", "shout", true},
		{"its name quoted", "entry 2 (note_list): function 'listNotes' is not defined", "note_list", true},
		{"an MCP server's group", "MCP server 'lab' is down: it could not be started", "lab", true},
		{"a longer name", "/tools/shout_loud.json: Missing corresponding .js file: shout_loud.js", "shout", false},
		{"a name inside a word", "/tools/reshout.json: invalid JSON", "shout", false},
		{"another tool", "/tools/other.json: invalid JSON", "shout", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := concerns(tt.problem, tt.tool); got != tt.want {
				t.Errorf("concerns(%q, %q) = %v, want %v", tt.problem, tt.tool, got, tt.want)
			}
		})
	}
}

func TestStackLines(t *testing.T) {
	msg := "TypeError: cannot read property 'x' of null\n    at helper (/t/greet.js:2:10)\n    at other (builtin/lib.js:1:1)\n    at execute (/t/greet.js:5:3)\n\nConsole output:\nlog:     at not a frame"
	tests := []struct {
		name, own string
		verbose   bool
		want      string
	}{
		{"the tool's own frames", "/t/greet.js", false,
			"TypeError: cannot read property 'x' of null\n    at helper (/t/greet.js:2:10)\n    at execute (/t/greet.js:5:3)\n\nConsole output:\nlog:     at not a frame"},
		{"a built-in's: none", "", false, "TypeError: cannot read property 'x' of null\n\nConsole output:\nlog:     at not a frame"},
		{"verbose: all", "", true, msg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stackLines(msg, tt.own, tt.verbose); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestDurationFlag(t *testing.T) {
	tests := []struct {
		input   string
		want    time.Duration
		wantErr bool
	}{
		{"10", 10 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"500ms", 500 * time.Millisecond, false},
		{"2m", 2 * time.Minute, false},
		{"0", 0, true},
		{"-1s", 0, true},
		{"soon", 0, true},
	}
	for _, tt := range tests {
		var d durationFlag
		err := d.Set(tt.input)
		if (err != nil) != tt.wantErr || (err == nil && time.Duration(d) != tt.want) {
			t.Errorf("Set(%q) = %v, %v; want %v, error %v", tt.input, time.Duration(d), err, tt.want, tt.wantErr)
		}
	}
}

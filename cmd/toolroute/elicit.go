package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/elicit"
	rcheck "github.com/toolroute/toolroute/registry/check"
)

// An MCP server's question for the user (elicitation/create), asked at
// the terminal a field at a time: the chat's, and toolroute call's. The
// module reads the form (who asks, each field's label, what it takes, its
// default and choices) and checks each value as it is typed, so a wrong
// one is asked again at once with the module's sentence.

// lineReader reads one answer after showing prompt; ok is false at the end
// of input.
type lineReader func(ctx context.Context, prompt string) (line string, ok bool, err error)

// askForm puts q to the user with read, showing its lines with say. The
// end of input cancels; the values go back as typed (host/mcp has the
// module type them and add the defaults).
func askForm(ctx context.Context, q host.Elicitation, read lineReader, say func(string)) (host.ElicitReply, error) {
	form, err := elicit.Read(ctx, q)
	if err != nil {
		return host.ElicitReply{}, err
	}
	say(fmt.Sprintf("? %s %s", form.Asks, form.Message))
	cancel := host.ElicitReply{Action: "cancel"}
	content := map[string]any{}
	for _, f := range form.Fields {
		if f.Description != "" && f.Description != f.Label {
			say(fmt.Sprintf("  %s: %s", f.Label, f.Description))
		}
		if len(f.Choices) > 0 {
			numbered := make([]string, len(f.Choices))
			for i, c := range f.Choices {
				numbered[i] = fmt.Sprintf("%d) %s", i+1, c.Label)
			}
			say("  " + strings.Join(numbered, ", "))
		}
		prompt := fmt.Sprintf("  %s (%s)%s: ", f.Label, f.Hint, defaultNote(f))
		for {
			line, ok, err := read(ctx, prompt)
			if err != nil {
				return host.ElicitReply{}, err
			}
			if !ok {
				say(fmt.Sprintf("  Not answered: '%s' is told you cancelled.", q.Server))
				return cancel, nil
			}
			var given any
			if line = strings.TrimSpace(line); line != "" {
				given = line
			}
			_, msg, err := elicit.Field(ctx, q, f.Name, given)
			if err != nil {
				return host.ElicitReply{}, err
			}
			if msg == "" {
				if given != nil {
					content[f.Name] = line
				}
				break
			}
			say("  " + msg)
		}
	}
	question := "  Answer? [y] yes, [n] decline, [c] cancel: "
	if len(form.Fields) > 0 {
		question = fmt.Sprintf("  Send these answers to '%s'? [y] yes, [n] decline, [c] cancel: ", q.Server)
	}
	for {
		line, ok, err := read(ctx, question)
		if err != nil {
			return host.ElicitReply{}, err
		}
		if !ok {
			return cancel, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return host.ElicitReply{Action: "accept", Content: content}, nil
		case "n", "no", "decline":
			say(fmt.Sprintf("  '%s' is told you declined.", q.Server))
			return host.ElicitReply{Action: "decline"}, nil
		case "c", "cancel":
			say(fmt.Sprintf("  '%s' is told you cancelled.", q.Server))
			return cancel, nil
		}
	}
}

// defaultNote shows a field's default, which an empty line takes.
func defaultNote(f rcheck.ElicitField) string {
	d := strings.Trim(string(f.Default), `"`)
	if d == "" {
		return ""
	}
	for _, c := range f.Choices {
		if c.Value == d {
			d = c.Label
		}
	}
	if f.Kind == "boolean" {
		d = map[string]string{"true": "yes", "false": "no"}[d]
	}
	return " [" + d + "]"
}

// Ask puts an MCP server's question to the chat's user (host.Asker): one
// at a time, since calls run side by side.
func (c *chat) Ask(ctx context.Context, q host.Elicitation) (host.ElicitReply, error) {
	c.asking.Lock()
	defer c.asking.Unlock()
	c.newline()
	defer func() { c.lineStart = true }()
	return askForm(ctx, q, c.readAnswer, c.println)
}

// readAnswer reads one answer at the terminal (with line editing), or a
// line of standard input (--ask-stdin), echoed. Ctrl-C stops the turn.
func (c *chat) readAnswer(ctx context.Context, prompt string) (string, bool, error) {
	if c.ed != nil {
		line, err := c.ed.readLine(ctx, prompt, false, nil)
		switch {
		case err == nil:
			return line, true, nil
		case ctx.Err() != nil:
			return "", false, ctx.Err()
		case errors.Is(err, io.EOF) && c.ed.interrupted():
			c.stopTurn()
			return "", false, context.Canceled
		case errors.Is(err, io.EOF):
			return "", false, nil
		}
		return "", false, err
	}
	fmt.Fprint(c.out, prompt)
	select {
	case line, ok := <-c.lines:
		if !ok {
			fmt.Fprintln(c.out)
			return "", false, nil
		}
		if !c.interactive {
			fmt.Fprintln(c.out, line)
		}
		return line, true, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

// stdinAsker asks toolroute call's user: prompts on standard error,
// answers a line each from standard input (a terminal, or a pipe).
type stdinAsker struct {
	mu    sync.Mutex
	out   io.Writer
	lines chan string
	once  sync.Once
	in    io.Reader
}

func (a *stdinAsker) Ask(ctx context.Context, q host.Elicitation) (host.ElicitReply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.once.Do(func() {
		a.lines = make(chan string)
		go func() {
			sc := bufio.NewScanner(a.in)
			for sc.Scan() {
				a.lines <- sc.Text()
			}
			close(a.lines)
		}()
	})
	read := func(ctx context.Context, prompt string) (string, bool, error) {
		fmt.Fprint(a.out, prompt)
		select {
		case line, ok := <-a.lines:
			if !ok {
				fmt.Fprintln(a.out)
			}
			return line, ok, nil
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
	return askForm(ctx, q, read, func(s string) { fmt.Fprintln(a.out, s) })
}

package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry/session"
)

// attach is /attach: with a path, it reads the file and keeps it for the
// next message; alone, it lists what is kept. The module tells what the
// file is and whether the model can take it when the message is sent
// (session.AttachFiles); the chat only reads it.
func (c *chat) attach(line string) {
	_, path, _ := strings.Cut(line, " ")
	path = strings.TrimSpace(path)
	if path == "" {
		if len(c.attached) == 0 {
			fmt.Fprintln(c.out, "No files attached: /attach PATH attaches one to your next message.")
			return
		}
		names := make([]string, 0, len(c.attached))
		for _, a := range c.attached {
			names = append(names, a.Name)
		}
		fmt.Fprintf(c.out, "Attached to your next message: %s (/detach drops them)\n", strings.Join(names, ", "))
		return
	}
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(path, "~/") {
		path = filepath.Join(home, path[2:])
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(c.errOut, "toolroute: /attach: %v\n", err)
		return
	}
	c.attached = append(c.attached, session.Attachment{Name: filepath.Base(path), Data: base64.StdEncoding.EncodeToString(data)})
	fmt.Fprintf(c.out, "[attached %s, %d bytes: it goes with your next message]\n", filepath.Base(path), len(data))
}

// detach is /detach: it drops the files attached.
func (c *chat) detach() {
	if len(c.attached) == 0 {
		fmt.Fprintln(c.out, "No files attached.")
		return
	}
	names := make([]string, 0, len(c.attached))
	for _, a := range c.attached {
		names = append(names, a.Name)
	}
	fmt.Fprintf(c.out, "[dropped %s]\n", strings.Join(names, ", "))
	c.attached = nil
}

// keepAttached keeps a message's files for the next try when the module
// refused the message: nothing was sent.
func (c *chat) keepAttached(err error, files []session.Attachment) {
	var refused *host.RefusedError
	if len(files) > 0 && errors.As(err, &refused) {
		c.attached = files
		fmt.Fprintln(c.out, "[your files stay attached: /attach lists them, /detach drops them]")
	}
}

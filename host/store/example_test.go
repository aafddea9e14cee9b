package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/registry/session"
)

// A SQLite file as the host's store (host.Options.Store): sessions' logs
// that outlive the process. A postgres:// URL instead of the path gives a
// database several processes share.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := store.Open(ctx, filepath.Join(dir, "toolroute.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	err = db.Append(ctx, "s1",
		session.Message{Type: session.User, Content: "What time is it?"},
		session.Message{Type: session.Assistant, Content: "It is 09:00."})
	if err != nil {
		log.Fatal(err)
	}
	msgs, err := db.Messages(ctx, "s1")
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Println(m.Type, m.Content)
	}
	// Output:
	// user What time is it?
	// assistant It is 09:00.
}

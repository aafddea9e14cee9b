package builtin_test

import (
	"context"
	"testing"

	"github.com/toolroute/toolroute/internal/checktest"
)

// opCtx is a context whose argument checks ask the module, as the host
// gives every operation it runs.
func opCtx(t testing.TB) context.Context { return checktest.Context(t) }

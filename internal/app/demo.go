package app

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/toolroute/toolroute/registry/demo"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// DemoModel is the demo provider's model name.
const DemoModel = demo.Model

// Demo is a provider that is not a model: registry/demo's scripted answers
// (time, "load the X tools", a group's subject, a note, or what it is), so
// toolroute can be tried without any provider; the browser and the worker
// run the same code through the module. Its replies say what it is. Tests
// never count it as a model.
type Demo struct{}

// Format implements host.Provider.
func (Demo) Format() wire.Format { return wire.OpenAI }

// Model implements host.Provider.
func (Demo) Model() string { return DemoModel }

// Call implements host.Provider: the next step, from the request.
func (Demo) Call(_ context.Context, req *session.ModelRequest) (*http.Response, error) {
	out, err := demo.Respond(req.Body)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK",
		Header: http.Header{"Content-Type": []string{"application/json"}},
		Body:   io.NopCloser(bytes.NewReader(out)),
	}, nil
}

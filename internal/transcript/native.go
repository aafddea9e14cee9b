package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// Native runs the engine in this process, without the wasm module.
type Native struct {
	// Logs, when set, keeps the sessions' Logs between turns, as a module
	// instance does (ReplaySessions).
	Logs *session.Logs
	// Resumed counts the turns that resumed a kept Log.
	Resumed int

	reg     *registry.Registry
	turn    *session.Turn
	session string
}

// Build registers the catalogue; a catalogue with problems is refused, so a
// transcript's set-up is always what it says.
func (n *Native) Build(catalogue []byte) error {
	var c registry.Catalogue
	if err := json.Unmarshal(catalogue, &c); err != nil {
		return err
	}
	reg, rep := registry.Build(c)
	if !rep.OK() {
		b, _ := json.Marshal(rep)
		return fmt.Errorf("catalogue has problems: %s", b)
	}
	n.reg = reg
	return nil
}

// NewTurn starts a turn.
func (n *Native) NewTurn() error {
	n.turn = session.NewTurn(n.reg)
	return nil
}

// Handle feeds one event.
func (n *Native) Handle(event []byte) ([]byte, error) {
	var e session.Event
	var err error
	if n.Logs != nil {
		// As a module instance reads it: a history is left as JSON,
		// which the kept Log holds.
		e, err = session.ReadEvent(event, "")
	} else {
		err = json.Unmarshal(event, &e)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", session.ErrEvent, err)
	}
	if n.Logs != nil && e.Type == session.EventStart {
		acts, ok, err := n.Logs.Start(n.turn, e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return session.MarshalActions(acts)
		}
		n.session = e.Session
		if e.Fingerprint != "" {
			n.Resumed++
		}
	}
	actions, err := n.turn.Handle(e)
	if err != nil {
		return nil, err
	}
	if n.Logs != nil {
		n.Logs.End(n.session, n.turn)
	}
	return session.MarshalActions(actions)
}

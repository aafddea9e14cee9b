package wire

import (
	"bytes"
	"fmt"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// MaxEventBytes bounds one server-sent event, so a stream that never ends a
// line cannot grow memory without limit.
const MaxEventBytes = 8 << 20

// Stream assembles a streamed (server-sent events) model response from the
// body's bytes, fed in chunks of any size: a chunk may end anywhere, inside a
// line or a UTF-8 sequence.
type Stream struct {
	sse sseDecoder
	fmt interface {
		event(name, data string) ([]string, error)
		close() (Response, error)
	}
	err error
}

// NewStream starts assembling a streamed response in format f.
func NewStream(f Format) (*Stream, error) {
	s := &Stream{}
	switch f {
	case OpenAI:
		s.fmt = &oaStream{}
	case Anthropic:
		s.fmt = &anStream{}
	case Responses:
		s.fmt = &rsStream{}
	case Gemini:
		s.fmt = &gmStream{}
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
	}
	return s, nil
}

// Write feeds the next bytes of the body and returns the text the model wrote
// in them, in order. After an error every later call returns it again.
func (s *Stream) Write(chunk []byte) ([]string, error) {
	if s.err != nil {
		return nil, s.err
	}
	var deltas []string
	s.err = s.sse.feed(chunk, func(name, data string) error {
		d, err := s.event(name, data)
		deltas = append(deltas, d...)
		return err
	})
	return deltas, s.err
}

// Close ends the body and returns the whole response; a stream that ended
// before the response did is an error wrapping ErrBadResponse.
func (s *Stream) Close() (Response, []string, error) {
	if s.err != nil {
		return Response{}, nil, s.err
	}
	var deltas []string
	s.err = s.sse.flush(func(name, data string) error {
		d, err := s.event(name, data)
		deltas = append(deltas, d...)
		return err
	})
	if s.err != nil {
		return Response{}, deltas, s.err
	}
	resp, err := s.fmt.close()
	s.err = err
	return resp, deltas, err
}

// event hands the format one event's data, once its nesting is checked,
// as all JSON from outside is (jsondec.MaxDepth).
func (s *Stream) event(name, data string) ([]string, error) {
	if err := jsondec.CheckDepthString(data); err != nil {
		return nil, fmt.Errorf("%w: a stream event's data %v, deeper than any model response: try again, and if it comes again, look at what the provider or a proxy before it sends", ErrBadResponse, err)
	}
	return s.fmt.event(name, data)
}

// sseDecoder splits a byte stream into server-sent events: lines end in LF,
// CRLF or CR; "event:" names the event; "data:" lines join with LF; a blank
// line dispatches; lines starting with ":" are comments.
type sseDecoder struct {
	buf     []byte
	scan    int // buf[:scan] holds no line end: resume looking there
	event   string
	data    bytes.Buffer
	hasData bool
}

func (d *sseDecoder) feed(chunk []byte, emit func(name, data string) error) error {
	d.buf = append(d.buf, chunk...)
	start, i := 0, d.scan
	for ; i < len(d.buf); i++ {
		c := d.buf[i]
		if c != '\n' && c != '\r' {
			continue
		}
		if c == '\r' && i+1 == len(d.buf) {
			break // a CR at the end may be the first half of CRLF: wait
		}
		if err := d.line(d.buf[start:i], emit); err != nil {
			return err
		}
		if c == '\r' && d.buf[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	d.buf = append(d.buf[:0], d.buf[start:]...)
	d.scan = i - start
	if len(d.buf)+d.data.Len() > MaxEventBytes {
		return fmt.Errorf("%w: a stream event is over %d bytes", ErrBadResponse, MaxEventBytes)
	}
	return nil
}

// flush handles what is left at the end of the body: a last line without its
// line end, and an event without its blank line.
func (d *sseDecoder) flush(emit func(name, data string) error) error {
	if len(bytes.TrimRight(d.buf, "\r")) > 0 {
		if err := d.line(bytes.TrimRight(d.buf, "\r"), emit); err != nil {
			return err
		}
	}
	d.buf, d.scan = d.buf[:0], 0
	return d.line(nil, emit)
}

func (d *sseDecoder) line(l []byte, emit func(name, data string) error) error {
	if len(l) == 0 {
		if !d.hasData {
			d.event = ""
			return nil
		}
		name, data := d.event, d.data.String()
		d.event, d.hasData = "", false
		d.data.Reset()
		return emit(name, data)
	}
	if l[0] == ':' {
		return nil
	}
	field, value, _ := bytes.Cut(l, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		d.event = string(value)
	case "data":
		if d.hasData {
			d.data.WriteByte('\n')
		}
		d.data.Write(value)
		d.hasData = true
	}
	return nil
}

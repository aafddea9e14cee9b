package wire

import (
	"encoding/json"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// The responses every model call decodes, read by hand with jsondec in
// the plain case and by encoding/json otherwise, so both accept the same
// bodies and refuse them with the same errors: FuzzResponseCodec compares
// the two.

// unmarshalOAResponse is json.Unmarshal(body, r).
// ReadResponse reads a whole response body in format f from r, a reader
// of some larger JSON (a host's event) at the body's value, and answers
// what Decode answers for the body's text, which it gives too: so the
// body is read once, not once as JSON and again as a response. ok is
// false, and r stopped, when the body is not the plain case r reads by
// hand, or f is a format read only by encoding/json: the caller then
// rewinds r (jsondec.Reader.Rewind), reads the body as it stands, and
// decodes it with Decode. It is for package session.
func ReadResponse(f Format, r *jsondec.Reader) (resp Response, body []byte, err error, ok bool) {
	if !r.IsObject() {
		r.Fail()
		return Response{}, nil, nil, false
	}
	m := r.Mark()
	switch f {
	case OpenAI:
		var v oaResponse
		if readOAResponse(r, &v); !r.Failed() {
			body = r.Since(m)
			resp, err = v.response(body)
			return resp, body, err, true
		}
	case Anthropic:
		var v anResponse
		if readANResponse(r, &v); !r.Failed() {
			body = r.Since(m)
			resp, err = v.response(body)
			return resp, body, err, true
		}
	default:
		r.Fail()
	}
	return Response{}, nil, nil, false
}

func unmarshalOAResponse(body []byte, r *oaResponse) error {
	rd := jsondec.NewReader(body)
	if !rd.IsString() {
		var v oaResponse
		if readOAResponse(rd, &v); rd.Done() {
			*r = v
			return nil
		}
	}
	return json.Unmarshal(body, r)
}

var (
	oaResponseKeys  = []string{"choices", "usage", "error"}
	oaChoiceKeys    = []string{"message", "finish_reason"}
	oaFinishReasons = []string{"tool_calls", "stop", "length", "content_filter"}
	oaMessageKeys   = []string{"content", "tool_calls"}
	oaCallKeys      = []string{"id", "function"}
	oaFunctionKeys  = []string{"name", "arguments"}
	oaUsageKeys     = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details"}
	oaDetailsKeys   = []string{"cached_tokens"}
)

func readOAResponse(r *jsondec.Reader, v *oaResponse) {
	type choice = struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	}
	r.Object(oaResponseKeys, func(key string) {
		switch key {
		case "choices":
			v.Choices = nil
			if r.Array(func() {
				v.Choices = append(v.Choices, choice{})
				c := &v.Choices[len(v.Choices)-1]
				r.Object(oaChoiceKeys, func(key string) {
					switch key {
					case "message":
						readOAMessage(r, &c.Message.Content, &c.Message.ToolCalls)
					case "finish_reason":
						c.FinishReason = r.StringIn(oaFinishReasons)
					}
				})
			}) && v.Choices == nil {
				v.Choices = []choice{}
			}
		case "usage":
			v.Usage = readOAUsage(r)
		case "error":
			v.Error = readRaw(r)
		}
	})
}

// readOAUsage reads an OpenAI usage object; null reads as nil.
func readOAUsage(r *jsondec.Reader) *oaUsage {
	if r.Null() {
		return nil
	}
	u := &oaUsage{}
	r.Object(oaUsageKeys, func(key string) {
		switch key {
		case "prompt_tokens":
			u.PromptTokens = r.Int()
		case "completion_tokens":
			u.CompletionTokens = r.Int()
		case "prompt_tokens_details":
			u.PromptTokensDetails = nil
			if !r.Null() {
				u.PromptTokensDetails = &struct {
					CachedTokens int `json:"cached_tokens"`
				}{}
				r.Object(oaDetailsKeys, func(string) { u.PromptTokensDetails.CachedTokens = r.Int() })
			}
		}
	})
	return u
}

type oaCalls = []struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func readOAMessage(r *jsondec.Reader, content *json.RawMessage, calls *oaCalls) {
	r.Object(oaMessageKeys, func(key string) {
		switch key {
		case "content":
			*content = readRaw(r)
		case "tool_calls":
			*calls = nil
			if r.Array(func() {
				*calls = append(*calls, struct {
					ID       string `json:"id"`
					Function struct {
						Name      string          `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					} `json:"function"`
				}{})
				c := &(*calls)[len(*calls)-1]
				r.Object(oaCallKeys, func(key string) {
					switch key {
					case "id":
						c.ID = r.String()
					case "function":
						r.Object(oaFunctionKeys, func(key string) {
							switch key {
							case "name":
								c.Function.Name = r.String()
							case "arguments":
								c.Function.Arguments = readRaw(r)
							}
						})
					}
				})
			}) && *calls == nil {
				*calls = oaCalls{}
			}
		}
	})
}

// readRaw reads a json.RawMessage as its UnmarshalJSON does: the value's
// text, null included, copied.
func readRaw(r *jsondec.Reader) json.RawMessage {
	raw := r.Raw()
	if raw == nil {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

// unquote is json.Unmarshal of raw into a string, reporting success.
func unquote(raw []byte) (string, bool) {
	r := jsondec.NewReader(raw)
	if r.IsString() {
		if s := r.String(); r.Done() {
			return s, true
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// unmarshalANResponse is json.Unmarshal(body, r).
func unmarshalANResponse(body []byte, r *anResponse) error {
	rd := jsondec.NewReader(body)
	if !rd.IsString() {
		var v anResponse
		if readANResponse(rd, &v); rd.Done() {
			*r = v
			return nil
		}
	}
	return json.Unmarshal(body, r)
}

var (
	anResponseKeys = []string{"type", "content", "stop_reason", "usage"}
	anBlockKeys    = []string{"type", "text", "id", "name", "input"}
	anUsageKeys    = []string{"input_tokens", "output_tokens", "cache_read_input_tokens"}
)

func readANResponse(r *jsondec.Reader, v *anResponse) {
	r.Object(anResponseKeys, func(key string) {
		switch key {
		case "type":
			v.Type = r.String()
		case "content":
			v.Content = nil
			if r.Array(func() {
				var k anResponseBlock
				readANBlock(r, &k)
				v.Content = append(v.Content, k)
			}) && v.Content == nil {
				v.Content = []anResponseBlock{}
			}
		case "stop_reason":
			v.StopReason = r.String()
		case "usage":
			readANUsage(r, &v.Usage)
		}
	})
}

// The parts of an OpenAI stream chunk, as oaChunk declares them.
type (
	oaChunkCall = struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	oaChunkChoice = struct {
		Delta struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []oaChunkCall   `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
)

var (
	oaChunkChoiceKeys = []string{"delta", "finish_reason"}
	oaChunkCallKeys   = []string{"index", "id", "function"}
)

// unmarshalOAChunk is json.Unmarshal(data, c): a stream's chunks come by
// the hundred for one response.
func unmarshalOAChunk(data []byte, c *oaChunk) error {
	rd := jsondec.NewReader(data)
	if !rd.IsString() {
		var v oaChunk
		if readOAChunk(rd, &v); rd.Done() {
			*c = v
			return nil
		}
	}
	return json.Unmarshal(data, c)
}

func readOAChunk(r *jsondec.Reader, v *oaChunk) {
	r.Object(oaResponseKeys, func(key string) {
		switch key {
		case "choices":
			v.Choices = nil
			if r.Array(func() {
				v.Choices = append(v.Choices, oaChunkChoice{})
				ch := &v.Choices[len(v.Choices)-1]
				r.Object(oaChunkChoiceKeys, func(key string) {
					switch key {
					case "delta":
						r.Object(oaMessageKeys, func(key string) {
							switch key {
							case "content":
								ch.Delta.Content = readRaw(r)
							case "tool_calls":
								ch.Delta.ToolCalls = nil
								if r.Array(func() {
									var c oaChunkCall
									r.Object(oaChunkCallKeys, func(key string) {
										switch key {
										case "index":
											c.Index = nil
											if !r.Null() {
												n := r.Int()
												c.Index = &n
											}
										case "id":
											c.ID = r.String()
										case "function":
											r.Object(oaFunctionKeys, func(key string) {
												switch key {
												case "name":
													c.Function.Name = r.String()
												case "arguments":
													c.Function.Arguments = readRaw(r)
												}
											})
										}
									})
									ch.Delta.ToolCalls = append(ch.Delta.ToolCalls, c)
								}) && ch.Delta.ToolCalls == nil {
									ch.Delta.ToolCalls = []oaChunkCall{}
								}
							}
						})
					case "finish_reason":
						ch.FinishReason = nil
						if !r.Null() {
							s := r.String()
							ch.FinishReason = &s
						}
					}
				})
			}) && v.Choices == nil {
				v.Choices = []oaChunkChoice{}
			}
		case "usage":
			v.Usage = readOAUsage(r)
		case "error":
			v.Error = readRaw(r)
		}
	})
}

var (
	anEventKeys   = []string{"type", "index", "content_block", "delta", "message", "usage"}
	anDeltaKeys   = []string{"type", "text", "partial_json", "stop_reason"}
	anMessageKeys = []string{"usage"}
)

// unmarshalANEvent is json.Unmarshal(data, e): a stream's events come by
// the hundred for one response.
func unmarshalANEvent(data []byte, e *anEvent) error {
	rd := jsondec.NewReader(data)
	if !rd.IsString() {
		var v anEvent
		if readANEvent(rd, &v); rd.Done() {
			*e = v
			return nil
		}
	}
	return json.Unmarshal(data, e)
}

func readANEvent(r *jsondec.Reader, v *anEvent) {
	r.Object(anEventKeys, func(key string) {
		switch key {
		case "type":
			v.Type = r.String()
		case "index":
			v.Index = r.Int()
		case "content_block":
			readANBlock(r, &v.ContentBlock)
		case "delta":
			r.Object(anDeltaKeys, func(key string) {
				switch key {
				case "type":
					v.Delta.Type = r.String()
				case "text":
					v.Delta.Text = r.String()
				case "partial_json":
					v.Delta.PartialJSON = r.String()
				case "stop_reason":
					v.Delta.StopReason = r.String()
				}
			})
		case "message":
			r.Object(anMessageKeys, func(string) { readANUsage(r, &v.Message.Usage) })
		case "usage":
			v.Usage = nil
			if !r.Null() {
				v.Usage = &anUsage{}
				readANUsage(r, v.Usage)
			}
		}
	})
}

func readANBlock(r *jsondec.Reader, k *anResponseBlock) {
	r.Object(anBlockKeys, func(key string) {
		switch key {
		case "type":
			k.Type = r.String()
		case "text":
			k.Text = r.String()
		case "id":
			k.ID = r.String()
		case "name":
			k.Name = r.String()
		case "input":
			k.Input = readRaw(r)
		}
	})
}

func readANUsage(r *jsondec.Reader, u *anUsage) {
	r.Object(anUsageKeys, func(key string) {
		switch key {
		case "input_tokens":
			u.InputTokens = r.Int()
		case "output_tokens":
			u.OutputTokens = r.Int()
		case "cache_read_input_tokens":
			u.CacheReadInputTokens = r.Int()
		}
	})
}

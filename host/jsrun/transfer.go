package jsrun

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxTransferBytes bounds what downloadToFile saves and what
// uploadMultipart sends: fetch's largest body (MaxFetchBytes, the bound of
// its maxBytes), which is also Google Drive's limit for a multipart upload.
// What a download writes counts in the sandbox folder's quota as fs's
// files do; fs reads files of MaxFileBytes at most, as text.
const MaxTransferBytes = MaxFetchBytes

// MaxUploadParts bounds the parts of one uploadMultipart.
const MaxUploadParts = 100

// maxErrorBody bounds the part of an error response's body a failed
// download quotes: enough for an API's error message.
const maxErrorBody = 1 << 10

// downloadRequest is what the prelude's downloadToFile hands the host
// (op net.download).
type downloadRequest struct {
	URL     string            `json:"url"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
}

// downloadResult is downloadToFile's answer, the shape tool files expect
// (docs/design/builtin-tools.md), with the HTTP status added (0 when no response came). Error is null on
// success.
type downloadResult struct {
	Success bool    `json:"success"`
	Path    string  `json:"path"`
	Size    int64   `json:"size"`
	Error   *string `json:"error"`
	Status  int     `json:"status"`
}

// uploadRequest is what the prelude's uploadMultipart hands the host (op
// net.upload), its parts checked: ContentType is the body's type without
// a boundary (multipart/related, multipart/form-data, or the tool's
// multipart/... with its other parameters), FormData whether parts get a
// Content-Disposition with their name.
type uploadRequest struct {
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
	ContentType string            `json:"contentType"`
	FormData    bool              `json:"formData"`
	Parts       []uploadPart      `json:"parts"`
}

// uploadPart is one part: Content (text, sent as UTF-8) or FilePath (a
// file of the sandbox folder, sent byte for byte).
type uploadPart struct {
	Name        *string `json:"name"`
	Filename    *string `json:"filename"`
	ContentType string  `json:"contentType"`
	Content     *string `json:"content"`
	FilePath    *string `json:"filePath"`
}

// uploadResult is uploadMultipart's answer, the shape tool files expect:
// the response's status and body (cut as fetch cuts it), ok for a 2xx
// status, and error, null when ok.
type uploadResult struct {
	Status int     `json:"status"`
	Body   string  `json:"body"`
	OK     bool    `json:"ok"`
	Error  *string `json:"error"`
}

// netOp serves the bridges of op names net.*: downloadToFile and
// uploadMultipart. Their failures are answers (success or ok false, with
// the error), not errors: tool files read them so.
func (s *callState) netOp(op, args string) (json.RawMessage, error) {
	var out any
	switch op {
	case "net.download":
		var req downloadRequest
		if err := json.Unmarshal([]byte(args), &req); err != nil {
			return nil, fmt.Errorf("downloadToFile: bad arguments: %v", err)
		}
		out = s.download(req)
	case "net.upload":
		var req uploadRequest
		if err := json.Unmarshal([]byte(args), &req); err != nil {
			return nil, fmt.Errorf("uploadMultipart: bad arguments: %v", err)
		}
		out = s.upload(req)
	default:
		return nil, fmt.Errorf("unknown request %q", op)
	}
	return json.Marshal(out)
}

// download GETs a URL into a file of the sandbox folder. The file is
// written only when the whole body came, with a 2xx status, within
// MaxTransferBytes: a failed download leaves what was there.
func (s *callState) download(req downloadRequest) downloadResult {
	res := downloadResult{Path: req.Path}
	fail := func(msg string) downloadResult {
		res.Error = &msg
		return res
	}
	if s.noNetwork {
		return fail("downloadToFile: " + req.URL + " was not requested: toolroute check runs a file's top level without the network")
	}
	// The path first: a bad one costs no request.
	rel, err := s.files().rel(req.Path)
	if err != nil {
		return fail("downloadToFile: " + strings.TrimPrefix(err.Error(), "fs: "))
	}
	if rel == "" {
		return fail(fmt.Sprintf("downloadToFile: '%s' is the sandbox folder: give a file's path, such as 'downloads/report.pdf'", req.Path))
	}
	resp, done, err := s.send("downloadToFile", req.URL, "GET", req.Headers, nil)
	if err != nil {
		return fail(err.Error())
	}
	defer done()
	res.Status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg := fmt.Sprintf("downloadToFile: %s answered HTTP %d %s", req.URL, resp.StatusCode, statusText(resp))
		if t := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD")); t != "" {
			msg += ": " + t
		}
		return fail(msg)
	}
	tooBig := func() downloadResult {
		return fail(fmt.Sprintf("downloadToFile: %s is over %d bytes (5 MB), the most a download saves: nothing was written", req.URL, MaxTransferBytes))
	}
	if resp.ContentLength > MaxTransferBytes {
		return tooBig()
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxTransferBytes+1))
	if err != nil {
		if s.ctx.Err() != nil || isTimeout(err) {
			return fail(fmt.Sprintf("downloadToFile: %s timed out: nothing was written", req.URL))
		}
		return fail(fmt.Sprintf("downloadToFile: reading %s: %v: nothing was written", req.URL, err))
	}
	if len(data) > MaxTransferBytes {
		return tooBig()
	}
	if err := s.files().writeBytes(req.Path, data); err != nil {
		return fail("downloadToFile: " + strings.TrimPrefix(err.Error(), "fs: "))
	}
	res.Success, res.Size = true, int64(len(data))
	return res
}

// isTimeout reports an error of a request whose time ran out.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout())
}

// upload POSTs parts as one multipart body.
func (s *callState) upload(req uploadRequest) uploadResult {
	var res uploadResult
	fail := func(msg string) uploadResult {
		res.Error = &msg
		return res
	}
	body, contentType, err := s.multipart(req)
	if err != nil {
		return fail("uploadMultipart: " + err.Error())
	}
	headers := map[string]string{}
	for _, k := range sortedKeys(req.Headers) {
		if !strings.EqualFold(k, "Content-Type") {
			headers[k] = req.Headers[k]
		}
	}
	headers["Content-Type"] = contentType
	resp, done, err := s.send("uploadMultipart", req.URL, "POST", headers, bytes.NewReader(body))
	if err != nil {
		return fail(err.Error())
	}
	defer done()
	res.Status = resp.StatusCode
	res.OK = resp.StatusCode >= 200 && resp.StatusCode <= 299
	maxBody := s.runner.client.opts.MaxBody
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxBody)+1))
	if err != nil {
		return fail(fmt.Sprintf("uploadMultipart: reading the response from %s: %v", req.URL, err))
	}
	res.Body = string(data)
	if len(data) > maxBody {
		res.Body = string(data[:maxBody]) + fmt.Sprintf("\n\n[toolroute: the body was cut at %s]", size(maxBody))
	}
	if !res.OK {
		return fail(fmt.Sprintf("uploadMultipart: %s answered HTTP %d %s", req.URL, resp.StatusCode, statusText(resp)))
	}
	return res
}

// multipart writes the body of an upload and its Content-Type, with a
// boundary found in no part.
func (s *callState) multipart(req uploadRequest) ([]byte, string, error) {
	if len(req.Parts) == 0 {
		return nil, "", fmt.Errorf("give at least one part")
	}
	if len(req.Parts) > MaxUploadParts {
		return nil, "", fmt.Errorf("%d parts: an upload takes at most %d", len(req.Parts), MaxUploadParts)
	}
	if !strings.HasPrefix(strings.ToLower(req.ContentType), "multipart/") {
		return nil, "", fmt.Errorf("the Content-Type '%s' is not multipart/related or multipart/form-data", req.ContentType)
	}
	contents := make([][]byte, len(req.Parts))
	total := 0
	for i, p := range req.Parts {
		switch {
		case p.FilePath != nil:
			b, err := s.files().readBytes(*p.FilePath, MaxTransferBytes)
			if err != nil {
				return nil, "", fmt.Errorf("part %d: %s", i+1, strings.TrimPrefix(err.Error(), "fs: "))
			}
			contents[i] = b
		case p.Content != nil:
			contents[i] = []byte(*p.Content)
		default:
			return nil, "", fmt.Errorf("part %d has neither content nor filePath", i+1)
		}
		total += len(contents[i])
		if total > MaxTransferBytes {
			return nil, "", fmt.Errorf("the parts hold over %d bytes (5 MB), the most an upload sends", MaxTransferBytes)
		}
	}
	boundary := newBoundary(contents)
	var b bytes.Buffer
	for i, p := range req.Parts {
		b.WriteString("--" + boundary + "\r\n")
		if req.FormData {
			disposition := `form-data; name="` + quoteField(deref(p.Name)) + `"`
			if p.Filename != nil {
				disposition += `; filename="` + quoteField(*p.Filename) + `"`
			}
			b.WriteString("Content-Disposition: " + disposition + "\r\n")
		}
		b.WriteString("Content-Type: " + oneLine(p.ContentType) + "\r\n\r\n")
		b.Write(contents[i])
		b.WriteString("\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.Bytes(), req.ContentType + "; boundary=" + boundary, nil
}

// newBoundary draws a boundary that no part holds.
func newBoundary(contents [][]byte) string {
	for {
		var r [16]byte
		rand.Read(r[:])
		boundary := "toolroute-" + hex.EncodeToString(r[:])
		clash := false
		for _, c := range contents {
			if bytes.Contains(c, []byte(boundary)) {
				clash = true
				break
			}
		}
		if !clash {
			return boundary
		}
	}
}

// quoteField escapes a name or file name for a quoted Content-Disposition
// parameter as browsers do for form data: '"', CR and LF percent-encoded.
func quoteField(s string) string {
	return strings.NewReplacer(`"`, "%22", "\r", "%0D", "\n", "%0A").Replace(s)
}

// oneLine keeps a header value on its line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

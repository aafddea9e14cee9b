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
	"slices"
	"strings"

	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// MaxTransferBytes bounds what downloadToFile saves and what
// uploadMultipart sends: fetch's largest body (MaxFetchBytes, the bound of
// its maxBytes), which is also Google Drive's limit for a multipart upload.
// What a download writes counts in the sandbox folder's quota as fs's
// files do; fs reads files of MaxFileBytes at most, as text.
const MaxTransferBytes = MaxFetchBytes

// MaxUploadParts bounds the parts of one uploadMultipart.
const MaxUploadParts = check.MaxUploadParts

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
		return fail("downloadToFile: " + strings.TrimPrefix(word(s.ctx, err).Error(), "fs: "))
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
		return fail("downloadToFile: " + strings.TrimPrefix(word(s.ctx, err).Error(), "fs: "))
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
	body, headers, err := s.multipart(req)
	if err != nil {
		return fail("uploadMultipart: " + err.Error())
	}
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
		note, err := cutNote(s.ctx, check.JSBridge{Max: maxBody, Short: true})
		if err != nil {
			return fail("uploadMultipart: " + err.Error())
		}
		res.Body = string(data[:maxBody]) + note
	}
	if !res.OK {
		return fail(fmt.Sprintf("uploadMultipart: %s answered HTTP %d %s", req.URL, resp.StatusCode, statusText(resp)))
	}
	return res
}

// multipart writes the body of an upload and its headers. The framing
// (each part's head, the tail, the Content-Type, the headers) and the
// upload's rules are the module's (js_bridge's multipart); the host reads
// the files and draws a boundary none of the parts' bytes hold.
func (s *callState) multipart(req uploadRequest) ([]byte, map[string]string, error) {
	u := check.Upload{ContentType: req.ContentType, FormData: req.FormData, Headers: req.Headers}
	for _, p := range req.Parts {
		u.Parts = append(u.Parts, check.UploadPart{Name: p.Name, Filename: p.Filename, ContentType: p.ContentType, Content: p.Content != nil, File: p.FilePath != nil})
	}
	var f struct {
		Heads   []string          `json:"heads"`
		Tail    string            `json:"tail"`
		Headers map[string]string `json:"headers"`
	}
	frame := func() error {
		err := module.CheckArgs(context.WithoutCancel(s.ctx), "js_bridge", check.JSBridge{Code: "multipart", Upload: &u}, &f)
		if err != nil && !errors.As(err, new(*module.Refused)) {
			err = fmt.Errorf("jsrun: asking the module (js_bridge multipart): %w", err)
		}
		return err
	}
	// The rules first, before any file is read: a boundary comes after.
	if err := frame(); err != nil {
		return nil, nil, err
	}
	contents := make([][]byte, len(req.Parts))
	total := 0
	for i, p := range req.Parts {
		if p.FilePath != nil {
			b, err := s.files().readBytes(*p.FilePath, MaxTransferBytes)
			if err != nil {
				return nil, nil, fmt.Errorf("part %d: %s", i+1, strings.TrimPrefix(word(s.ctx, err).Error(), "fs: "))
			}
			contents[i] = b
		} else if p.Content != nil {
			contents[i] = []byte(*p.Content)
		} else {
			return nil, nil, fmt.Errorf("jsrun: the module let part %d pass with nothing in it", i+1)
		}
		total += len(contents[i])
		if total > MaxTransferBytes {
			return nil, nil, refused(s.ctx, check.JSBridge{Code: "upload_too_large", Max: MaxTransferBytes})
		}
	}
	u.Boundary = boundaryFor(contents)
	if err := frame(); err != nil {
		return nil, nil, err
	}
	if len(f.Heads) != len(contents) {
		return nil, nil, fmt.Errorf("jsrun: the module framed %d parts of %d", len(f.Heads), len(contents))
	}
	var b bytes.Buffer
	for i, c := range contents {
		b.WriteString(f.Heads[i])
		b.Write(c)
		b.WriteString("\r\n")
	}
	b.WriteString(f.Tail)
	return b.Bytes(), f.Headers, nil
}

// boundaryFor draws random boundaries until one is in none of contents.
func boundaryFor(contents [][]byte) string {
	for {
		var r [16]byte
		rand.Read(r[:])
		boundary := "toolroute-" + hex.EncodeToString(r[:])
		if !slices.ContainsFunc(contents, func(c []byte) bool { return bytes.Contains(c, []byte(boundary)) }) {
			return boundary
		}
	}
}

package pdf

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os/exec"
	"strconv"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// maxImageBytes is the most bytes of a picture whose base64 stays under
// registry.CheckImages' cap (5 MiB of base64).
const maxImageBytes = registry.MaxImageChars / 4 * 3

// findPdftoppm finds poppler-utils' pdftoppm, or says why it is missing.
func findPdftoppm(bin string) (string, string) {
	if bin == "" {
		bin = "pdftoppm"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Sprintf("%s (Debian's and Ubuntu's poppler-utils, Homebrew's poppler) is not installed; install it to render pages", bin)
	}
	return p, ""
}

// render answers pdf_render_page: the page as a PNG whose long side is
// Def.RenderLongSide pixels, or as a JPEG when the PNG would pass the
// image cap (a photograph), smaller again if that is still too large.
func (t *tools) render(ctx context.Context, in json.RawMessage) (host.Output, error) {
	a, err := args[struct {
		source
		Page *float64 `json:"page"`
	}](in)
	if err != nil {
		return host.Output{}, err
	}
	page := 1
	if a.Page != nil {
		if *a.Page < 1 || *a.Page != float64(int(*a.Page)) {
			return host.Output{}, fail("invalid_arguments", "bad_page")
		}
		page = int(*a.Page)
	}
	d, err := t.open(ctx, a.source)
	if err != nil {
		return host.Output{}, err
	}
	if page > d.ctx.PageCount {
		return host.Output{}, fail("invalid_arguments", "out_of_range", "page", strconv.Itoa(page), "name", d.name, "count", strconv.Itoa(d.ctx.PageCount))
	}
	side := Def.RenderLongSide
	mime, format := "image/png", "-png"
	var img []byte
	for range 4 {
		img, err = t.runPdftoppm(ctx, d.data, page, side, format)
		if err != nil {
			if ctx.Err() != nil {
				return host.Output{}, ctx.Err()
			}
			return host.Output{}, fail("execution_error", "not_rendered", "page", strconv.Itoa(page), "name", d.name, "why", err.Error())
		}
		if len(img) <= maxImageBytes {
			break
		}
		if format == "-png" {
			mime, format = "image/jpeg", "-jpeg"
		} else {
			side = side * 2 / 3
		}
	}
	if len(img) > maxImageBytes {
		return host.Output{}, fail("execution_error", "too_large_picture", "page", strconv.Itoa(page), "name", d.name, "side", strconv.Itoa(side))
	}
	w, h := 0, 0
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(img)); err == nil {
		w, h = cfg.Width, cfg.Height
	}
	text := fmt.Sprintf("Page %d of %d of %s, %d x %d px: [image %s, %d bytes]", page, d.ctx.PageCount, d.name, w, h, mime, len(img))
	return host.Output{Text: text, Images: []registry.Image{{MIMEType: mime, Data: base64.StdEncoding.EncodeToString(img)}}}, nil
}

// pdftoppm renders one page, reading the PDF from standard input and
// writing the picture to standard output (no output root).
func (t *tools) runPdftoppm(ctx context.Context, data []byte, page, side int, format string) ([]byte, error) {
	args := []string{format, "-f", strconv.Itoa(page), "-l", strconv.Itoa(page), "-singlefile", "-scale-to", strconv.Itoa(side)}
	if format == "-jpeg" {
		args = append(args, "-jpegopt", "quality=85")
	}
	cmd := exec.CommandContext(ctx, t.pdftoppm, append(args, "-")...)
	cmd.Stdin = bytes.NewReader(data)
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		msg := bytes.TrimSpace(errOut.Bytes())
		if len(msg) > 300 {
			msg = msg[:300]
		}
		if len(msg) > 0 {
			return nil, errors.New(string(msg))
		}
		return nil, err
	}
	if out.Len() == 0 {
		return nil, errors.New("pdftoppm wrote no picture")
	}
	return out.Bytes(), nil
}

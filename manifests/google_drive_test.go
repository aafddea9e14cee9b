package manifests_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_drive", "drive_list_files", `{}`})
}

// driveArgs makes a tool's arguments as JSON.
func driveArgs(t *testing.T, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// driveBody decodes the last request's JSON body.
func driveBody(t *testing.T, g *gtest) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(g.Last().Body, &body); err != nil {
		t.Fatalf("body %s: %v", g.Last().Body, err)
	}
	return body
}

// driveNewID finds the id a tool's output gives for a new item.
func driveNewID(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`\(id: ([\w-]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no id in %q", out)
	}
	return m[1]
}

// driveOrder checks that the output names items in this order.
func driveOrder(t *testing.T, out string, names ...string) {
	t.Helper()
	last := -1
	for _, n := range names {
		i := strings.Index(out, n)
		if i <= last {
			t.Errorf("%q is not after %q in:\n%s", n, names, out)
			return
		}
		last = i
	}
}

func TestGoogleDriveList(t *testing.T) {
	g := newGoogle(t)

	out := g.Call("drive_list_files", `{}`, "6 items in My Drive, newest first:",
		"- server.log (id: "+fakegoogle.DriveLogID+") — text/plain, 60 KB, modified 2026-11-20 09:00 UTC, owner Ada Lovelace <ada@example.com>",
		"- Projects (id: "+fakegoogle.DriveProjectsID+") — folder, modified 2026-11-19 11:00 UTC",
		"- Budget shortcut (id: "+fakegoogle.DriveShortcutID+") — shortcut")
	driveOrder(t, out, "server.log", "Projects", "meeting-notes.txt", "Ada's reading list.md", "Budget shortcut", "Finance")
	if strings.Contains(out, "old-draft.txt") {
		t.Errorf("a trashed file is listed:\n%s", out)
	}
	r := g.Last()
	if r.Host != "www.googleapis.com" || r.Method != "GET" || r.Path != "/drive/v3/files" {
		t.Errorf("list request: %s %s%s", r.Method, r.Host, r.Path)
	}
	q := r.Query
	if q.Get("q") != "'root' in parents and trashed = false" || q.Get("orderBy") != "modifiedTime desc" || q.Get("pageSize") != "25" ||
		q.Get("supportsAllDrives") != "true" || q.Get("includeItemsFromAllDrives") != "true" ||
		q.Get("fields") != "nextPageToken,files(id,name,mimeType,size,modifiedTime,owners(displayName,emailAddress),driveId)" {
		t.Errorf("list query: %v", q)
	}

	// A folder with a file someone else owns.
	out = g.Call("drive_list_files", `{"folder_id":"`+fakegoogle.DriveProjectsID+`"}`, "2 items in folder "+fakegoogle.DriveProjectsID,
		"- Team Offsite 2026 (id: "+fakegoogle.DriveSlidesID+") — Google Slides, 90 bytes, modified 2026-11-19 10:47 UTC, owner Grace Hopper <grace@example.com>",
		"- Q4 Planning Notes (id: "+fakegoogle.DriveDocID+") — Google Doc")
	driveOrder(t, out, "Team Offsite 2026", "Q4 Planning Notes")

	// A shared drive's folder: no owner, found only with the shared drive flags.
	g.Call("drive_list_files", `{"folder_id":"`+fakegoogle.DriveSharedDriveID+`"}`,
		"- architecture.md (id: "+fakegoogle.DriveArchMdID+") — text/markdown, 72 bytes, modified 2026-11-14 13:20 UTC, in a shared drive")

	// Pages.
	out = g.Call("drive_list_files", `{"max_results":2}`, "2 items in My Drive", "server.log", "Projects", `(More items: call again with page_token "`)
	token := regexp.MustCompile(`page_token "([^"]+)"`).FindStringSubmatch(out)[1]
	out = g.Call("drive_list_files", driveArgs(t, map[string]any{"max_results": 2, "page_token": token}), "meeting-notes.txt", "Ada's reading list.md")
	if strings.Contains(out, "server.log") || g.Last().Query.Get("pageToken") != token {
		t.Errorf("second page: %v\n%s", g.Last().Query, out)
	}

	g.Call("drive_list_files", `{"folder_id":"nope"}`, "No items in folder nope (or no such folder")
	g.Fail("drive_list_files", `{"max_results":500}`, "max_results must be a whole number from 1 to 100")
}

func TestGoogleDriveSearch(t *testing.T) {
	g := newGoogle(t)

	// name contains matches the start of words, newest first.
	out := g.Call("drive_search", `{"query":"budget"}`, `2 results for name matching "budget", newest first:`,
		"- 2026 Budget (id: "+fakegoogle.DriveSheetID+") — Google Sheet", "- Budget shortcut (id: "+fakegoogle.DriveShortcutID+")")
	driveOrder(t, out, "2026 Budget", "Budget shortcut")
	if q := g.Last().Query; q.Get("q") != "name contains 'budget' and trashed = false" || q.Get("orderBy") != "modifiedTime desc" {
		t.Errorf("search query: %v", q)
	}
	g.Call("drive_search", `{"query":"dget"}`, `Nothing found for name matching "dget".`)
	g.Call("drive_search", `{"query":"old-draft"}`, "Nothing found")

	// Quotes and backslashes are escaped.
	g.Call("drive_search", `{"query":"Ada's"}`, "1 result", "- Ada's reading list.md (id: "+fakegoogle.DriveReadingID+") — text/markdown")
	if q := g.Last().Query.Get("q"); q != `name contains 'Ada\'s' and trashed = false` {
		t.Errorf("q = %s", q)
	}
	g.Call("drive_search", driveArgs(t, map[string]any{"query": `C:\Temp 'x'`}), "Nothing found")
	if q := g.Last().Query.Get("q"); q != `name contains 'C:\\Temp \'x\'' and trashed = false` {
		t.Errorf("q = %s", q)
	}

	// Full text: words in the content, by relevance (Drive cannot sort these).
	g.Call("drive_search", `{"query":"Lisbon","match":"full_text"}`, `1 result for text matching "Lisbon", most relevant first:`, "Team Offsite 2026")
	if q := g.Last().Query; q.Get("q") != "fullText contains 'Lisbon' and trashed = false" || q.Has("orderBy") {
		t.Errorf("full-text query: %v", q)
	}
	g.Call("drive_search", `{"query":"budget review","match":"full_text"}`, "1 result", "Q4 Planning Notes")

	// Types, alone or with a folder.
	g.Call("drive_search", `{"mime_type":"document"}`, "1 result for type document", "Q4 Planning Notes")
	if q := g.Last().Query.Get("q"); q != "mimeType = 'application/vnd.google-apps.document' and trashed = false" {
		t.Errorf("q = %s", q)
	}
	out = g.Call("drive_search", `{"mime_type":"text","folder_id":"root"}`, "3 results for type text, in folder root", "server.log", "meeting-notes.txt", "Ada's reading list.md")
	if q := g.Last().Query.Get("q"); q != "mimeType contains 'text/' and 'root' in parents and trashed = false" {
		t.Errorf("q = %s", q)
	}
	g.Call("drive_search", `{"mime_type":"folder","query":"fin"}`, "1 result", "- Finance (id: "+fakegoogle.DriveFinanceID+") — folder")
	g.Call("drive_search", `{"mime_type":"application/pdf"}`, "- Invoice 2026-11.pdf (id: "+fakegoogle.DrivePDFID+") — PDF, 47 KB")

	g.Fail("drive_search", `{}`, "Give query (words to look for), mime_type, or both")
	g.Fail("drive_search", `{"mime_type":"spreadsheets!"}`, "mime_type must be one of folder, document")
	g.Fail("drive_search", `{"query":"x","match":"regex"}`, "match must be name or full_text")
}

func TestGoogleDriveRead(t *testing.T) {
	g := newGoogle(t)

	g.Call("drive_get_file", `{"file_id":"`+fakegoogle.DriveDocID+`"}`,
		"Name: Q4 Planning Notes", "Id: "+fakegoogle.DriveDocID, "Type: Google Doc (application/vnd.google-apps.document)",
		"Created: 2026-10-02 09:15 UTC", "Modified: 2026-11-17 14:22 UTC by Grace Hopper <grace@example.com>",
		"Owner: Ada Lovelace <ada@example.com>", "In folder: "+fakegoogle.DriveProjectsID, "Shared: yes",
		"Description: Goals and risks for the last quarter", "Link: https://docs.google.com/document/d/"+fakegoogle.DriveDocID+"/edit?usp=drivesdk")
	if q := g.Last().Query; g.Last().Path != "/drive/v3/files/"+fakegoogle.DriveDocID || q.Get("supportsAllDrives") != "true" ||
		!strings.Contains(q.Get("fields"), "owners(displayName,emailAddress),lastModifyingUser(displayName,emailAddress),parents") {
		t.Errorf("get request: %s %v", g.Last().Path, q)
	}
	g.Call("drive_get_file", `{"file_id":"`+fakegoogle.DriveArchMdID+`"}`, "Shared drive: "+fakegoogle.DriveSharedDriveID, "Shared: no")
	g.Call("drive_get_file", `{"file_id":"`+fakegoogle.DriveShortcutID+`"}`, "Shortcut to: "+fakegoogle.DriveSheetID+" (Google Sheet)")
	g.Fail("drive_get_file", `{"file_id":"nope"}`, "HTTP 404", "No file or folder nope is visible to this account: find the id with drive_search or drive_list_files")
	g.Fail("drive_get_file", `{"file_id":" "}`, "Missing file_id")

	// Google editors' files are exported; the Doc's byte order mark is dropped.
	g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveDocID+`"}`,
		"File \"Q4 Planning Notes\" (id: "+fakegoogle.DriveDocID+"), Google Doc exported as plain text:\n\nQ4 Planning Notes\n\nGoals\n- Ship")
	if r := g.Last(); r.Path != "/drive/v3/files/"+fakegoogle.DriveDocID+"/export" || r.Query.Get("mimeType") != "text/plain" {
		t.Errorf("export request: %s %v", r.Path, r.Query)
	}
	g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveSheetID+`"}`, "Google Sheet exported as CSV (first sheet):\n\nCategory,Q3,Q4\nTravel,1200,1500\n")
	if g.Last().Query.Get("mimeType") != "text/csv" {
		t.Errorf("sheet export: %v", g.Last().Query)
	}
	g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveSlidesID+`"}`, "Google Slides exported as plain text", "Lisbon, 9–11 December")

	// Text files are downloaded as they are.
	out := g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveNotesID+`"}`, "File \"meeting-notes.txt\" (id: "+fakegoogle.DriveNotesID+"), text/plain:\n\nSync on 18 November 2026\n")
	if r := g.Last(); r.Query.Get("alt") != "media" || r.Header.Get("Range") != "" || strings.Contains(out, "cut") {
		t.Errorf("download: %v %v\n%s", r.Query, r.Header, out)
	}
	// A long one: only a range is fetched, and the text is cut.
	out = g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveLogID+`","max_chars":1000}`, "[… cut at 1000 characters; the file has 60 KB: raise max_chars to see more]")
	if rng := g.Last().Header.Get("Range"); rng != "bytes=0-3999" {
		t.Errorf("Range = %q", rng)
	}
	if n := strings.Count(out, "INFO request served"); n != 24 {
		t.Errorf("%d log lines shown, want 24", n)
	}
	g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveArchMdID+`"}`, "The router sends each request")

	// What cannot be read says why, without downloading.
	before := len(g.G.Requests())
	g.Fail("drive_read_file", `{"file_id":"`+fakegoogle.DrivePDFID+`"}`, "\"Invoice 2026-11.pdf\" (id: "+fakegoogle.DrivePDFID+") is a binary file (PDF, 47 KB) and cannot be read as text",
		"Open it at https://drive.google.com/file/d/"+fakegoogle.DrivePDFID+"/view")
	g.Fail("drive_read_file", `{"file_id":"`+fakegoogle.DriveFinanceID+`"}`, "is a folder, not a file: list what is in it with drive_list_files (folder_id "+fakegoogle.DriveFinanceID+")")
	g.Fail("drive_read_file", `{"file_id":"`+fakegoogle.DriveShortcutID+`"}`, "is a shortcut: read the file it points to with drive_read_file (file_id "+fakegoogle.DriveSheetID+")")
	if n := len(g.G.Requests()) - before; n != 3 {
		t.Errorf("%d requests for three refusals, want 3 (metadata only)", n)
	}
	g.Fail("drive_read_file", `{"file_id":"nope"}`, "HTTP 404", "find the id with drive_search")
	g.Fail("drive_read_file", `{"file_id":"x","max_chars":10}`, "max_chars must be a whole number from 100 to 50000")

	// Metadata access only: details yes, content no.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/drive.metadata.readonly"))
	g.Call("drive_get_file", `{"file_id":"`+fakegoogle.DriveNotesID+`"}`, "Name: meeting-notes.txt")
	g.Fail("drive_read_file", `{"file_id":"`+fakegoogle.DriveDocID+`"}`, "HTTP 403", "https://www.googleapis.com/auth/drive.readonly")
	g.Fail("drive_read_file", `{"file_id":"`+fakegoogle.DriveNotesID+`"}`, "HTTP 403", "https://www.googleapis.com/auth/drive.readonly")
	g.Token(fakegoogle.Token)
}

// driveUpload checks the last request was a multipart upload and returns
// its metadata and media parts.
func driveUpload(t *testing.T, g *gtest) (meta map[string]any, mediaType, media string) {
	t.Helper()
	r := g.Last()
	if r.Method != "POST" || r.Path != "/upload/drive/v3/files" || r.Query.Get("uploadType") != "multipart" || r.Query.Get("supportsAllDrives") != "true" {
		t.Fatalf("upload request: %s %s %v", r.Method, r.Path, r.Query)
	}
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/related" {
		t.Fatalf("upload Content-Type %q", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(strings.NewReader(string(r.Body)), params["boundary"])
	var parts []string
	var types []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		parts, types = append(parts, string(data)), append(types, p.Header.Get("Content-Type"))
	}
	if len(parts) != 2 || types[0] != "application/json; charset=UTF-8" {
		t.Fatalf("upload parts %q %q", types, parts)
	}
	if err := json.Unmarshal([]byte(parts[0]), &meta); err != nil {
		t.Fatal(err)
	}
	return meta, types[1], parts[1]
}

func TestGoogleDriveWrite(t *testing.T) {
	g := newGoogle(t)
	st := g.G.Drive()

	// Upload a text file into a folder, and read it back.
	content := "# Plan\n\nCafé ☕ — it's \"done\"\n"
	out := g.Call("drive_upload_text_file", driveArgs(t, map[string]any{"name": "plan.md", "content": content, "mime_type": "text/markdown",
		"folder_id": fakegoogle.DriveProjectsID, "description": "Draft plan"}),
		`Uploaded "plan.md" (id: `, "text/markdown, 34 bytes) to folder "+fakegoogle.DriveProjectsID+".", "Link: https://drive.google.com/file/d/")
	meta, mediaType, media := driveUpload(t, g)
	if meta["name"] != "plan.md" || meta["mimeType"] != "text/markdown" || meta["description"] != "Draft plan" ||
		len(meta["parents"].([]any)) != 1 || meta["parents"].([]any)[0] != fakegoogle.DriveProjectsID || mediaType != "text/markdown; charset=UTF-8" || media != content {
		t.Errorf("upload parts: %v %q %q", meta, mediaType, media)
	}
	id := driveNewID(t, out)
	if f := st.File(id); f == nil || f.Content != content || f.Parents[0] != fakegoogle.DriveProjectsID || f.Size != "34" {
		t.Errorf("uploaded file: %+v", f)
	}
	g.Call("drive_read_file", `{"file_id":"`+id+`"}`, "text/markdown:\n\n"+content)

	// Into My Drive's root, as a Google Doc.
	out = g.Call("drive_upload_text_file", `{"name":"Letter","content":"Dear Grace,\nthank you.","as_google_doc":true}`, `Uploaded "Letter" (id: `, "Google Doc", "to My Drive.")
	meta, mediaType, _ = driveUpload(t, g)
	if meta["mimeType"] != "application/vnd.google-apps.document" || meta["parents"] != nil || mediaType != "text/plain; charset=UTF-8" {
		t.Errorf("Doc upload: %v %q", meta, mediaType)
	}
	g.Call("drive_read_file", `{"file_id":"`+driveNewID(t, out)+`"}`, "Google Doc exported as plain text:\n\nDear Grace,\nthank you.")

	// Content holding the boundary gets another one.
	tricky := "--toolroute_drive_upload\r\nContent-Type: text/plain\r\n\r\nnot a part"
	out = g.Call("drive_upload_text_file", driveArgs(t, map[string]any{"name": "tricky.txt", "content": tricky}), `Uploaded "tricky.txt"`)
	if _, _, media = driveUpload(t, g); media != tricky || st.File(driveNewID(t, out)).Content != tricky {
		t.Errorf("tricky content came through as %q", media)
	}
	g.Call("drive_upload_text_file", `{"name":"empty.txt","content":""}`, `Uploaded "empty.txt"`, "0 bytes")

	g.Fail("drive_upload_text_file", `{"name":"a.png","content":"x","mime_type":"image/png"}`, "mime_type must be a text type", "Binary files cannot be uploaded")
	g.Fail("drive_upload_text_file", `{"name":"a.csv","content":"x","mime_type":"text/csv","as_google_doc":true}`, "as_google_doc works with text/plain, text/markdown or text/html")
	g.Fail("drive_upload_text_file", `{"name":"a.txt","content":"x","folder_id":"nope"}`, "HTTP 404", `No folder nope: find its id with drive_search (mime_type "folder")`)

	// Folders.
	out = g.Call("drive_create_folder", `{"name":"Archive"}`, `Created the folder "Archive" (id: `, "in My Drive.", "Link: https://drive.google.com/drive/folders/")
	archive := driveNewID(t, out)
	if r := g.Last(); r.Method != "POST" || r.Path != "/drive/v3/files" || string(r.Body) != `{"name":"Archive","mimeType":"application/vnd.google-apps.folder"}` || r.Query.Get("fields") == "" {
		t.Errorf("create folder: %s %s %s %v", r.Method, r.Path, r.Body, r.Query)
	}
	out = g.Call("drive_create_folder", `{"name":"2026","parent_folder_id":"`+archive+`"}`, `Created the folder "2026"`, "in folder "+archive)
	sub := driveNewID(t, out)
	if body := driveBody(t, g); body["parents"].([]any)[0] != archive {
		t.Errorf("subfolder body: %v", body)
	}
	g.Fail("drive_create_folder", `{"name":"x","parent_folder_id":"nope"}`, "HTTP 404", "No folder nope")

	// Move: the old parent goes, the new one comes.
	g.Call("drive_move", `{"file_id":"`+fakegoogle.DriveNotesID+`","folder_id":"`+archive+`"}`,
		`Moved "meeting-notes.txt" (id: `+fakegoogle.DriveNotesID+") to folder "+archive+" (it was in "+fakegoogle.DriveRootID+").")
	if r := g.Last(); r.Method != "PATCH" || r.Query.Get("addParents") != archive || r.Query.Get("removeParents") != fakegoogle.DriveRootID || string(r.Body) != "{}" {
		t.Errorf("move: %s %v %s", r.Method, r.Query, r.Body)
	}
	g.Call("drive_list_files", `{"folder_id":"`+archive+`"}`, "meeting-notes.txt")
	g.Call("drive_move", `{"file_id":"`+fakegoogle.DriveNotesID+`","folder_id":"root"}`, "to My Drive (it was in "+archive+")")
	if q := g.Last().Query; q.Get("addParents") != "root" {
		t.Errorf("move to root: %v", q)
	}
	g.Fail("drive_move", `{"file_id":"`+archive+`","folder_id":"`+sub+`"}`, "HTTP 400", "cannot be moved into itself")
	g.Fail("drive_move", `{"file_id":"`+fakegoogle.DriveNotesID+`","folder_id":"nope"}`, "HTTP 404", "No folder nope (or no file "+fakegoogle.DriveNotesID+")")

	// Rename and copy.
	g.Call("drive_rename", `{"file_id":"`+fakegoogle.DriveNotesID+`","new_name":"sync-2026-11-18.txt"}`, "Renamed file "+fakegoogle.DriveNotesID+` to "sync-2026-11-18.txt".`)
	if r := g.Last(); r.Method != "PATCH" || string(r.Body) != `{"name":"sync-2026-11-18.txt"}` || st.File(fakegoogle.DriveNotesID).Name != "sync-2026-11-18.txt" {
		t.Errorf("rename: %s %s", r.Method, r.Body)
	}
	g.Fail("drive_rename", `{"file_id":"nope","new_name":"x"}`, "HTTP 404", "No file or folder nope")
	g.Fail("drive_rename", `{"file_id":"x","new_name":" "}`, "Missing new_name")

	out = g.Call("drive_copy", `{"file_id":"`+fakegoogle.DriveDocID+`"}`, `to "Copy of Q4 Planning Notes" (id: `, "Google Doc) in folder "+fakegoogle.DriveProjectsID)
	if r := g.Last(); r.Path != "/drive/v3/files/"+fakegoogle.DriveDocID+"/copy" || string(r.Body) != "{}" {
		t.Errorf("copy: %s %s", r.Path, r.Body)
	}
	g.Call("drive_read_file", `{"file_id":"`+driveNewID(t, out)+`"}`, "Goals")
	g.Call("drive_copy", `{"file_id":"`+fakegoogle.DriveSheetID+`","name":"2027 Budget","folder_id":"`+archive+`"}`, `to "2027 Budget"`, "in folder "+archive)
	if body := driveBody(t, g); body["name"] != "2027 Budget" || body["parents"].([]any)[0] != archive {
		t.Errorf("copy body: %v", body)
	}
	g.Fail("drive_copy", `{"file_id":"`+fakegoogle.DriveFinanceID+`"}`, "HTTP 403")

	// Trash by default; permanent only when asked, and only by the owner.
	g.Call("drive_delete", `{"file_id":"`+fakegoogle.DriveReadingID+`"}`, `Moved "Ada's reading list.md" (id: `+fakegoogle.DriveReadingID+") to the trash")
	if r := g.Last(); r.Method != "PATCH" || string(r.Body) != `{"trashed":true}` {
		t.Errorf("trash: %s %s", r.Method, r.Body)
	}
	g.Call("drive_get_file", `{"file_id":"`+fakegoogle.DriveReadingID+`"}`, "In the trash: yes")
	if out := g.Call("drive_list_files", `{}`); strings.Contains(out, "reading list") {
		t.Errorf("a trashed file is listed:\n%s", out)
	}
	g.Call("drive_delete", `{"file_id":"`+archive+`","permanent":true}`, "Deleted file "+archive+" permanently; it cannot be restored.")
	if r := g.Last(); r.Method != "DELETE" || r.Path != "/drive/v3/files/"+archive || len(r.Body) != 0 {
		t.Errorf("delete: %s %s %s", r.Method, r.Path, r.Body)
	}
	if st.File(archive) != nil || st.File(sub) != nil {
		t.Errorf("the folder or its subfolder is still there")
	}
	g.Fail("drive_get_file", `{"file_id":"`+archive+`"}`, "HTTP 404")
	g.Fail("drive_delete", `{"file_id":"`+fakegoogle.DriveSlidesID+`","permanent":true}`, "HTTP 403")
	g.Fail("drive_delete", `{"file_id":"nope"}`, "HTTP 404", "No file or folder nope")

	// Read-only access lists and reads but changes nothing.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/drive.readonly"))
	g.Call("drive_read_file", `{"file_id":"`+fakegoogle.DriveDocID+`"}`, "Goals")
	g.Fail("drive_create_folder", `{"name":"x"}`, "HTTP 403", "https://www.googleapis.com/auth/drive,")
	g.Fail("drive_upload_text_file", `{"name":"x.txt","content":"x"}`, "HTTP 403", "https://www.googleapis.com/auth/drive,")
	g.Token(fakegoogle.Token)
}

func TestGoogleDriveShare(t *testing.T) {
	g := newGoogle(t)
	doc := fakegoogle.DriveDocID

	g.Call("drive_list_permissions", `{"file_id":"`+doc+`"}`, "2 with access to file "+doc+":",
		"- Ada Lovelace <ada@example.com>: owner (permission id: 07316185421765234610)",
		"- Bob Smith <bob@example.com>: writer (permission id: 05928472013847562910)")
	if q := g.Last().Query; g.Last().Path != "/drive/v3/files/"+doc+"/permissions" || q.Get("supportsAllDrives") != "true" || !strings.HasPrefix(q.Get("fields"), "nextPageToken,permissions(id,type,role") {
		t.Errorf("permissions list: %s %v", g.Last().Path, q)
	}
	g.Call("drive_list_permissions", `{"file_id":"`+fakegoogle.DriveSlidesID+`"}`, "- Grace Hopper <grace@example.com>: owner", "- Anyone with the link: reader (permission id: anyoneWithLink)")
	g.Fail("drive_list_permissions", `{"file_id":"nope"}`, "HTTP 404", "No file or folder nope")

	// A person, with a message in the notification email.
	g.Call("drive_share", `{"file_id":"`+doc+`","role":"writer","email_address":"carol@example.com","message":"Please add your goals"}`,
		"Shared file "+doc+" with carol@example.com (user) as writer (permission id: ", "A notification email was sent.")
	r := g.Last()
	if r.Method != "POST" || r.Path != "/drive/v3/files/"+doc+"/permissions" || r.Query.Get("sendNotificationEmail") != "true" ||
		r.Query.Get("emailMessage") != "Please add your goals" || r.Query.Get("supportsAllDrives") != "true" ||
		string(r.Body) != `{"type":"user","role":"writer","emailAddress":"carol@example.com"}` {
		t.Errorf("share user: %s %s %v %s", r.Method, r.Path, r.Query, r.Body)
	}
	// A group, quietly.
	g.Call("drive_share", `{"file_id":"`+doc+`","role":"commenter","type":"group","email_address":"planning@example.com","notify":false}`,
		"with planning@example.com (group) as commenter", "No email was sent.")
	if q := g.Last().Query; q.Get("sendNotificationEmail") != "false" || q.Has("emailMessage") {
		t.Errorf("share group: %v", q)
	}
	// Anyone with the link, and a whole domain that may find it by search.
	g.Call("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"anyone"}`, "with anyone with the link as reader (permission id: anyoneWithLink).")
	if r := g.Last(); r.Query.Has("sendNotificationEmail") || string(r.Body) != `{"type":"anyone","role":"reader","allowFileDiscovery":false}` {
		t.Errorf("share anyone: %v %s", r.Query, r.Body)
	}
	g.Call("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"domain","domain":"Example.com","allow_discovery":true}`,
		"with everyone at example.com as reader", "It can be found by searching.")
	if body := driveBody(t, g); body["domain"] != "example.com" || body["allowFileDiscovery"] != true {
		t.Errorf("share domain: %v", body)
	}
	// Sharing with Bob again changes his role.
	g.Call("drive_share", `{"file_id":"`+doc+`","role":"reader","email_address":"bob@example.com","notify":false}`, "as reader (permission id: 05928472013847562910)")

	g.Call("drive_list_permissions", `{"file_id":"`+doc+`"}`, "6 with access",
		"- Bob Smith <bob@example.com>: reader", "- carol@example.com: writer", "- planning@example.com (group): commenter",
		"- Anyone with the link: reader", "- Everyone at example.com (can find it by searching): reader")
	g.Call("drive_list_permissions", `{"file_id":"`+fakegoogle.DriveArchMdID+`"}`, "- Ada Lovelace <ada@example.com>: organizer")

	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"writer"}`, "Sharing with a user needs email_address")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"domain"}`, "Sharing with a domain needs domain")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"reader","email_address":"a@example.com","notify":false,"message":"hi"}`, "A message goes in the notification email")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"anyone","message":"hi"}`, "No email is sent when sharing with a domain or anyone")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"owner","email_address":"a@example.com"}`, "role must be reader, commenter or writer")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"everyone"}`, "type must be user, group, domain or anyone")
	g.Fail("drive_share", `{"file_id":"nope","role":"reader","email_address":"a@example.com"}`, "HTTP 404", "No file or folder nope")

	// Reading permissions is fine read-only; sharing is not.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/drive.readonly"))
	g.Call("drive_list_permissions", `{"file_id":"`+doc+`"}`, "Bob Smith")
	g.Fail("drive_share", `{"file_id":"`+doc+`","role":"reader","type":"anyone"}`, "HTTP 403", "https://www.googleapis.com/auth/drive,")
	g.Token(fakegoogle.Token)
}

// driveRecorder is a testing.TB that keeps the fake's complaints instead of
// failing, for the tests of what the fake refuses.
type driveRecorder struct {
	testing.TB
	complaints []string
}

func (r *driveRecorder) Errorf(format string, args ...any) {
	r.complaints = append(r.complaints, fmt.Sprintf(format, args...))
}

// The fake evaluates the q language the tools write and refuses, as a test
// failure, what it cannot parse; it checks fields against the resources.
func TestGoogleDriveFakeQuery(t *testing.T) {
	tests := []struct {
		name, q, fields, orderBy string
		want                     []string // the names found, in order
		wantErr                  string   // the fake's complaint
	}{
		{name: "name contains", q: "name contains 'budget'", orderBy: "name", want: []string{"2026 Budget", "Budget shortcut"}},
		{name: "word prefix only", q: "name contains 'udget'"},
		{name: "trashed files match without a trashed term", q: "name contains 'old'", want: []string{"old-draft.txt"}},
		{name: "not", q: "not trashed = true and name contains 'old'"},
		{name: "or in parentheses", q: "(mimeType = 'text/plain' or mimeType = 'text/markdown') and 'root' in parents and trashed = false",
			orderBy: "name", want: []string{"Ada's reading list.md", "meeting-notes.txt", "server.log"}},
		{name: "escaped quote", q: `name contains 'Ada\'s'`, want: []string{"Ada's reading list.md"}},
		{name: "full text", q: "fullText contains 'analytical engine'", want: []string{"Ada's reading list.md"}},
		{name: "name equals", q: "name = 'Finance'", want: []string{"Finance"}},
		{name: "folders first", q: "'" + fakegoogle.DriveFinanceID + "' in parents", orderBy: "folder,modifiedTime desc", want: []string{"2026 Budget", "Invoice 2026-11.pdf"}},
		{name: "unquoted value", q: "name contains budget", wantErr: `compares with a quoted string`},
		{name: "unclosed string", q: "name contains 'budget", wantErr: "a string is not closed"},
		{name: "v2 term", q: "title contains 'budget'", wantErr: `the query term "title" is not understood`},
		{name: "wrong operator", q: "fullText = 'budget'", wantErr: `fullText does not take the operator "="`},
		{name: "other collection", q: "'ada@example.com' in owners", wantErr: "only 'ID' in parents"},
		{name: "bad escape", q: `name contains 'a\b'`, wantErr: "a backslash escapes only"},
		{name: "bad boolean", q: "trashed = maybe", wantErr: "compares with true or false"},
		{name: "missing parenthesis", q: "(name contains 'a'", wantErr: "a ')' is missing"},
		{name: "dangling and", q: "name contains 'a' and", wantErr: "the query ends too soon"},
		{name: "sorted full text", q: "fullText contains 'budget'", orderBy: "modifiedTime desc", wantErr: "Sorting is not supported for queries with fullText terms"},
		{name: "unknown field", q: "name = 'Finance'", fields: "files(name,modifiedDate)", wantErr: "Invalid field selection files.modifiedDate"},
		{name: "unclosed fields", q: "name = 'Finance'", fields: "files(name", wantErr: "a ')' is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &driveRecorder{TB: t}
			fake := fakegoogle.New(rec)
			fields := tt.fields
			if fields == "" {
				fields = "files(name)"
			}
			query := url.Values{"q": {tt.q}, "fields": {fields}}
			if tt.orderBy != "" {
				query.Set("orderBy", tt.orderBy)
			}
			req, _ := http.NewRequest("GET", fake.URL+"/www.googleapis.com/drive/v3/files?"+query.Encode(), nil)
			req.Header.Set("Authorization", "Bearer "+fakegoogle.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Files []map[string]any `json:"files"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			if tt.wantErr != "" {
				if resp.StatusCode != 400 || len(rec.complaints) != 1 || !strings.Contains(rec.complaints[0], tt.wantErr) {
					t.Errorf("status %d, complaints %q; want 400 and %q", resp.StatusCode, rec.complaints, tt.wantErr)
				}
				return
			}
			if resp.StatusCode != 200 || len(rec.complaints) > 0 {
				t.Fatalf("status %d, complaints %q", resp.StatusCode, rec.complaints)
			}
			var got []string
			for _, f := range body.Files {
				if len(f) != 1 {
					t.Errorf("fields=files(name) answered %v", f)
				}
				got = append(got, f["name"].(string))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("found %q, want %q", got, tt.want)
			}
		})
	}
}

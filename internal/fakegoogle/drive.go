package fakegoogle

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Google Drive API v3: https://developers.google.com/workspace/drive/api/reference/rest/v3
//
// The fake keeps one account's My Drive (a root with folders, a Google Doc,
// a Sheet, a Slides deck, a PDF, text files, a shortcut and a trashed file)
// and one shared drive. files.list evaluates the part of the q language the
// tools write; the fields parameter is checked against the resources' field
// names and honoured; uploads are multipart/related only.

const (
	driveScopeFull             = "https://www.googleapis.com/auth/drive"
	driveScopeReadonly         = "https://www.googleapis.com/auth/drive.readonly"
	driveScopeFile             = "https://www.googleapis.com/auth/drive.file"
	driveScopeAppdata          = "https://www.googleapis.com/auth/drive.appdata"
	driveScopeMetadata         = "https://www.googleapis.com/auth/drive.metadata"
	driveScopeMetadataReadonly = "https://www.googleapis.com/auth/drive.metadata.readonly"
	driveScopeMeetReadonly     = "https://www.googleapis.com/auth/drive.meet.readonly"
	driveScopePhotosReadonly   = "https://www.googleapis.com/auth/drive.photos.readonly"
	driveScopeScripts          = "https://www.googleapis.com/auth/drive.scripts"
)

// The scopes each method's reference lists.
var (
	driveRead = []string{driveScopeFull, driveScopeAppdata, driveScopeFile, driveScopeMeetReadonly,
		driveScopeMetadata, driveScopeMetadataReadonly, driveScopePhotosReadonly, driveScopeReadonly} // files.list, files.get
	driveExport      = []string{driveScopeFull, driveScopeFile, driveScopeMeetReadonly, driveScopeReadonly}
	driveCreate      = []string{driveScopeFull, driveScopeAppdata, driveScopeFile} // files.create, files.delete
	driveUpdate      = []string{driveScopeFull, driveScopeAppdata, driveScopeFile, driveScopeMetadata, driveScopeScripts}
	driveCopy        = []string{driveScopeFull, driveScopeAppdata, driveScopeFile, driveScopePhotosReadonly}
	drivePermsWrite  = []string{driveScopeFull, driveScopeFile}
	drivePermsRead   = []string{driveScopeFull, driveScopeFile, driveScopeMeetReadonly, driveScopeMetadata, driveScopeMetadataReadonly, driveScopePhotosReadonly, driveScopeReadonly}
	driveContentRead = []string{driveScopeFull, driveScopeAppdata, driveScopeFile, driveScopeMeetReadonly, driveScopePhotosReadonly, driveScopeReadonly} // alt=media: not the metadata scopes
)

// The Google editors' MIME types.
const (
	driveFolderType   = "application/vnd.google-apps.folder"
	driveDocType      = "application/vnd.google-apps.document"
	driveSheetType    = "application/vnd.google-apps.spreadsheet"
	driveSlidesType   = "application/vnd.google-apps.presentation"
	driveShortcutType = "application/vnd.google-apps.shortcut"
)

// The fake's ids: My Drive's root, the folders and files tests name.
const (
	DriveRootID        = "0AHqkM2vE5xYUk9PVA"
	DriveSharedDriveID = "0AEnGdRvXyZpQUk9PVA"
	DriveProjectsID    = "1kR7tQpL2mXbN9cVwZ4yH8sJ3dF6gA0eU"
	DriveFinanceID     = "1FnC8wXq3LzP5vM2bK7rT9yJ4hD6sG0aE"
	DriveDocID         = "1DqPlN4nOt3sQ4pLaNnInG8mXv2Kc9RwTbYzH5jU7eAo"
	DriveSheetID       = "1BdGt26ShEeTxQ8vLm3NpRk5WcYz7HjU9aFs4DgE6oLw"
	DriveSlidesID      = "1OfSt7sLiDeSkQ2mVx9RbN4cWz6HyJ3pLt8GaE5uFd0K"
	DrivePDFID         = "1InV0iCe26NoV9xQpL3mRt7Wz5Ky8Hb4Dc"
	DriveNotesID       = "1MtGnOtEs7xQ2pLv9Rk4Wz6Hy3Jb8Dc5Fa"
	DriveReadingID     = "1AdAsRdNgLsT4xQ9pLv2Rk7Wz3Hy6Jb8Dc"
	DriveLogID         = "1SrVrLoG5xQ8pLv3Rk6Wz9Hy2Jb7Dc4FaQ"
	DriveTrashedID     = "1OlDdRaFt5xQ8pLv3Rk6Wz9Hy2Jb7Dc4Fa"
	DriveShortcutID    = "1ShRtCuT3xQ6pLv9Rk2Wz5Hy8Jb4Dc7Fa"
	DriveArchMdID      = "1ArChMd8xQ3pLv6Rk9Wz2Hy5Jb7Dc4Fa1"
)

// DriveUser is a drive#user.
type DriveUser struct {
	Kind         string `json:"kind"`
	DisplayName  string `json:"displayName"`
	EmailAddress string `json:"emailAddress"`
	PermissionID string `json:"permissionId"`
	Me           bool   `json:"me"`
	PhotoLink    string `json:"photoLink,omitempty"`
}

// DrivePermission is a drive#permission.
type DrivePermission struct {
	Kind               string `json:"kind"`
	ID                 string `json:"id"`
	Type               string `json:"type"`
	Role               string `json:"role"`
	EmailAddress       string `json:"emailAddress,omitempty"`
	Domain             string `json:"domain,omitempty"`
	DisplayName        string `json:"displayName,omitempty"`
	AllowFileDiscovery *bool  `json:"allowFileDiscovery,omitempty"`
	Deleted            bool   `json:"deleted"`
	PendingOwner       bool   `json:"pendingOwner"`
}

// DriveShortcut is a file's shortcutDetails.
type DriveShortcut struct {
	TargetID       string `json:"targetId"`
	TargetMimeType string `json:"targetMimeType"`
}

// DriveFile is a drive#file, with its content (a Google editor file's
// content is its plain text or CSV export).
type DriveFile struct {
	Kind              string             `json:"kind"`
	ID                string             `json:"id"`
	Name              string             `json:"name"`
	MimeType          string             `json:"mimeType"`
	Description       string             `json:"description,omitempty"`
	Starred           bool               `json:"starred"`
	Trashed           bool               `json:"trashed"`
	ExplicitlyTrashed bool               `json:"explicitlyTrashed"`
	TrashedTime       string             `json:"trashedTime,omitempty"`
	Parents           []string           `json:"parents,omitempty"`
	WebViewLink       string             `json:"webViewLink"`
	CreatedTime       string             `json:"createdTime"`
	ModifiedTime      string             `json:"modifiedTime"`
	Owners            []*DriveUser       `json:"owners,omitempty"`
	LastModifyingUser *DriveUser         `json:"lastModifyingUser,omitempty"`
	Shared            bool               `json:"shared"`
	OwnedByMe         bool               `json:"ownedByMe"`
	Size              string             `json:"size,omitempty"`
	DriveID           string             `json:"driveId,omitempty"`
	ShortcutDetails   *DriveShortcut     `json:"shortcutDetails,omitempty"`
	Permissions       []*DrivePermission `json:"permissions,omitempty"`
	Content           string             `json:"-"`
}

// DriveState is the Drive service's data.
type DriveState struct {
	Files []*DriveFile // in creation order; the roots of My Drive and the shared drive included
}

// driveNow is when the fake's changes happen.
const driveNow = "2026-11-21T10:00:00.000Z"

var drivePeople = map[string]*DriveUser{
	Email:               {Kind: "drive#user", DisplayName: "Ada Lovelace", EmailAddress: Email, PermissionID: "07316185421765234610"},
	"grace@example.com": {Kind: "drive#user", DisplayName: "Grace Hopper", EmailAddress: "grace@example.com", PermissionID: "11843260195724538071"},
	"bob@example.com":   {Kind: "drive#user", DisplayName: "Bob Smith", EmailAddress: "bob@example.com", PermissionID: "05928472013847562910"},
}

func driveUser(email string) *DriveUser {
	u := *drivePeople[email]
	u.Me = email == Email
	return &u
}

func driveUserPermission(email, role string) *DrivePermission {
	u := drivePeople[email]
	return &DrivePermission{Kind: "drive#permission", ID: u.PermissionID, Type: "user", Role: role, EmailAddress: email, DisplayName: u.DisplayName}
}

func driveLink(id, mimeType string) string {
	switch mimeType {
	case driveFolderType:
		return "https://drive.google.com/drive/folders/" + id
	case driveDocType:
		return "https://docs.google.com/document/d/" + id + "/edit?usp=drivesdk"
	case driveSheetType:
		return "https://docs.google.com/spreadsheets/d/" + id + "/edit?usp=drivesdk"
	case driveSlidesType:
		return "https://docs.google.com/presentation/d/" + id + "/edit?usp=drivesdk"
	}
	return "https://drive.google.com/file/d/" + id + "/view?usp=drivesdk"
}

// driveNew makes a file owned by owner ("" for a shared drive's item).
func driveNew(id, name, mimeType, parent, owner, modified, content string) *DriveFile {
	f := &DriveFile{Kind: "drive#file", ID: id, Name: name, MimeType: mimeType, WebViewLink: driveLink(id, mimeType),
		CreatedTime: modified, ModifiedTime: modified, Content: content}
	if parent != "" {
		f.Parents = []string{parent}
	}
	if owner != "" {
		f.Owners = []*DriveUser{driveUser(owner)}
		f.LastModifyingUser = driveUser(owner)
		f.OwnedByMe = owner == Email
		f.Permissions = []*DrivePermission{driveUserPermission(owner, "owner")}
	}
	if mimeType != driveFolderType && mimeType != driveShortcutType {
		f.Size = strconv.Itoa(len(content))
	}
	return f
}

// Drive returns the Drive service's state.
func (s *Server) Drive() *DriveState {
	return State(s, "drive", func() *DriveState {
		root := driveNew(DriveRootID, "My Drive", driveFolderType, "", Email, "2026-01-10T08:00:00.000Z", "")
		projects := driveNew(DriveProjectsID, "Projects", driveFolderType, DriveRootID, Email, "2026-11-19T11:00:00.000Z", "")
		projects.Permissions = append(projects.Permissions, driveUserPermission("grace@example.com", "writer"))
		finance := driveNew(DriveFinanceID, "Finance", driveFolderType, DriveRootID, Email, "2026-11-05T09:12:00.000Z", "")
		doc := driveNew(DriveDocID, "Q4 Planning Notes", driveDocType, DriveProjectsID, Email, "2026-11-17T14:22:31.000Z",
			"Q4 Planning Notes\r\n\r\nGoals\r\n- Ship the Drive integration by 12 December.\r\n- Hire two engineers for the platform team.\r\n\r\nRisks\r\nThe budget review on 28 November may cut travel.\r\n")
		doc.CreatedTime = "2026-10-02T09:15:00.000Z"
		doc.LastModifyingUser = driveUser("grace@example.com")
		doc.Description = "Goals and risks for the last quarter"
		doc.Permissions = append(doc.Permissions, driveUserPermission("bob@example.com", "writer"))
		sheet := driveNew(DriveSheetID, "2026 Budget", driveSheetType, DriveFinanceID, Email, "2026-11-16T17:40:00.000Z",
			"Category,Q3,Q4\r\nTravel,1200,1500\r\nSoftware,3400,3600\r\nHardware,800,2100\r\n")
		sheet.Starred = true
		slides := driveNew(DriveSlidesID, "Team Offsite 2026", driveSlidesType, DriveProjectsID, "grace@example.com", "2026-11-19T10:47:03.000Z",
			"Team Offsite 2026\n\nAgenda\n1. Welcome\n2. Roadmap review\n\nLogistics\nLisbon, 9–11 December\n")
		slides.Permissions = append(slides.Permissions, driveUserPermission(Email, "writer"),
			&DrivePermission{Kind: "drive#permission", ID: "anyoneWithLink", Type: "anyone", Role: "reader", AllowFileDiscovery: new(bool)})
		pdf := driveNew(DrivePDFID, "Invoice 2026-11.pdf", "application/pdf", DriveFinanceID, Email, "2026-11-03T12:01:44.000Z",
			"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
		pdf.Size = "48213"
		notes := driveNew(DriveNotesID, "meeting-notes.txt", "text/plain", DriveRootID, Email, "2026-11-18T16:05:12.000Z",
			"Sync on 18 November 2026\n- Alan: finish the fake Drive server\n- Grace: review the offsite agenda\n- Next sync: 25 November\n")
		reading := driveNew(DriveReadingID, "Ada's reading list.md", "text/markdown", DriveRootID, Email, "2026-11-12T08:30:00.000Z",
			"# Reading list\n\n- Sketch of the Analytical Engine\n- On computable numbers\n")
		logFile := driveNew(DriveLogID, "server.log", "text/plain", DriveRootID, Email, "2026-11-20T09:00:00.000Z",
			strings.Repeat("2026-11-20T09:00:00Z INFO request served\n", 1500))
		trashed := driveNew(DriveTrashedID, "old-draft.txt", "text/plain", DriveRootID, Email, "2026-11-02T10:00:00.000Z", "An old draft.\n")
		trashed.Trashed, trashed.ExplicitlyTrashed, trashed.TrashedTime = true, true, "2026-11-04T10:00:00.000Z"
		shortcut := driveNew(DriveShortcutID, "Budget shortcut", driveShortcutType, DriveRootID, Email, "2026-11-10T15:00:00.000Z", "")
		shortcut.ShortcutDetails = &DriveShortcut{TargetID: DriveSheetID, TargetMimeType: driveSheetType}
		shared := driveNew(DriveSharedDriveID, "Engineering", driveFolderType, "", "", "2026-03-01T09:00:00.000Z", "")
		shared.DriveID = DriveSharedDriveID
		shared.Permissions = []*DrivePermission{driveUserPermission(Email, "organizer")}
		arch := driveNew(DriveArchMdID, "architecture.md", "text/markdown", DriveSharedDriveID, "", "2026-11-14T13:20:00.000Z",
			"# Architecture\n\nThe router sends each request to one of three services.\n")
		arch.DriveID = DriveSharedDriveID
		arch.LastModifyingUser = driveUser("grace@example.com")
		arch.Permissions = []*DrivePermission{driveUserPermission(Email, "organizer")}
		return &DriveState{Files: []*DriveFile{root, projects, finance, doc, sheet, slides, pdf, notes, reading, logFile, trashed, shortcut, shared, arch}}
	})
}

// File returns the file with this id, "root" for My Drive's root, or nil.
func (st *DriveState) File(id string) *DriveFile {
	if id == "root" {
		id = DriveRootID
	}
	return first(st.Files, func(f *DriveFile) bool { return f.ID == id })
}

// trashed says whether a file is in the trash, itself or by a folder it is
// in.
func (st *DriveState) trashed(f *DriveFile) bool {
	for depth := 0; f != nil && depth < 50; depth++ {
		if f.Trashed {
			return true
		}
		if len(f.Parents) == 0 {
			return false
		}
		f = st.File(f.Parents[0])
	}
	return false
}

// within says whether f is the folder id or inside it.
func (st *DriveState) within(f *DriveFile, id string) bool {
	for depth := 0; f != nil && depth < 50; depth++ {
		if f.ID == id {
			return true
		}
		if len(f.Parents) == 0 {
			return false
		}
		f = st.File(f.Parents[0])
	}
	return false
}

// view is a file as the API shows it: trashed and shared worked out, no
// permissions for a shared drive's items.
func (st *DriveState) view(f *DriveFile) DriveFile {
	v := *f
	v.Trashed = st.trashed(f)
	v.Shared = false
	for _, p := range f.Permissions {
		if p.Role != "owner" && p.Role != "organizer" {
			v.Shared = true
		}
	}
	if f.DriveID != "" {
		v.Permissions = nil
	}
	return v
}

// lookup finds a file for a request: a shared drive's items only with
// supportsAllDrives=true, as Drive does. It answers 404 itself.
func (st *DriveState) lookup(c *Call, id string, allDrives bool) *DriveFile {
	f := st.File(id)
	if f == nil || f.DriveID != "" && !allDrives {
		driveNotFound(c, id)
		return nil
	}
	return f
}

func driveNotFound(c *Call, id string) {
	writeError(c.W, http.StatusNotFound, "NOT_FOUND", "File not found: "+id+".", "notFound")
}

func driveAllDrives(c *Call) bool { return c.Query.Get("supportsAllDrives") == "true" }

// The field names of the resources, for the fields parameter.
var (
	driveUserFields       = fieldNames{"kind": nil, "displayName": nil, "photoLink": nil, "me": nil, "permissionId": nil, "emailAddress": nil}
	drivePermissionFields = fieldNames{"kind": nil, "id": nil, "type": nil, "emailAddress": nil, "domain": nil, "role": nil, "view": nil,
		"allowFileDiscovery": nil, "displayName": nil, "photoLink": nil, "expirationTime": nil, "deleted": nil, "pendingOwner": nil,
		"permissionDetails": nil, "teamDrivePermissionDetails": nil, "inheritedPermissionsDisabled": nil}
	driveFileFields = fieldNames{"kind": nil, "id": nil, "name": nil, "mimeType": nil, "description": nil, "starred": nil, "trashed": nil,
		"explicitlyTrashed": nil, "trashedTime": nil, "trashingUser": driveUserFields, "parents": nil, "properties": nil, "appProperties": nil,
		"spaces": nil, "version": nil, "webContentLink": nil, "webViewLink": nil, "iconLink": nil, "hasThumbnail": nil, "thumbnailLink": nil,
		"thumbnailVersion": nil, "viewedByMe": nil, "viewedByMeTime": nil, "createdTime": nil, "modifiedTime": nil, "modifiedByMeTime": nil,
		"modifiedByMe": nil, "sharedWithMeTime": nil, "sharingUser": driveUserFields, "owners": driveUserFields, "driveId": nil, "teamDriveId": nil,
		"lastModifyingUser": driveUserFields, "shared": nil, "ownedByMe": nil, "capabilities": nil, "viewersCanCopyContent": nil,
		"copyRequiresWriterPermission": nil, "writersCanShare": nil, "permissions": drivePermissionFields, "permissionIds": nil,
		"hasAugmentedPermissions": nil, "folderColorRgb": nil, "originalFilename": nil, "fullFileExtension": nil, "fileExtension": nil,
		"md5Checksum": nil, "sha1Checksum": nil, "sha256Checksum": nil, "size": nil, "quotaBytesUsed": nil, "headRevisionId": nil,
		"contentHints": nil, "imageMediaMetadata": nil, "videoMediaMetadata": nil, "isAppAuthorized": nil, "exportLinks": nil,
		"shortcutDetails": fieldNames{"targetId": nil, "targetMimeType": nil, "targetResourceKey": nil}, "contentRestrictions": nil,
		"resourceKey": nil, "linkShareMetadata": nil, "labelInfo": nil, "inheritedPermissionsDisabled": nil, "downloadRestrictions": nil}
	driveFileListFields       = fieldNames{"kind": nil, "nextPageToken": nil, "incompleteSearch": nil, "files": driveFileFields}
	drivePermissionListFields = fieldNames{"kind": nil, "nextPageToken": nil, "permissions": drivePermissionFields}
)

// The q language: the terms the tools write, combined with and, or, not
// and parentheses. Anything else is refused.

type driveToken struct {
	kind byte // 's' string, 'w' word, 'p' punctuation or operator
	text string
}

func driveLex(q string) ([]driveToken, error) {
	var toks []driveToken
	for i := 0; i < len(q); {
		switch ch := q[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n':
			i++
		case ch == '\'':
			var b strings.Builder
			i++
			for {
				if i >= len(q) {
					return nil, fmt.Errorf("a string is not closed")
				}
				if q[i] == '\\' {
					if i+1 >= len(q) || q[i+1] != '\'' && q[i+1] != '\\' {
						return nil, fmt.Errorf("a backslash escapes only ' and \\ at %d", i)
					}
					b.WriteByte(q[i+1])
					i += 2
					continue
				}
				if q[i] == '\'' {
					i++
					break
				}
				b.WriteByte(q[i])
				i++
			}
			toks = append(toks, driveToken{'s', b.String()})
		case ch == '(' || ch == ')' || ch == '=':
			toks = append(toks, driveToken{'p', string(ch)})
			i++
		case ch == '!' || ch == '<' || ch == '>':
			if i+1 < len(q) && q[i+1] == '=' {
				toks = append(toks, driveToken{'p', q[i : i+2]})
				i += 2
			} else if ch == '!' {
				return nil, fmt.Errorf("a lone ! at %d", i)
			} else {
				toks = append(toks, driveToken{'p', string(ch)})
				i++
			}
		case ch == '_' || ch < 0x80 && (unicode.IsLetter(rune(ch)) || unicode.IsDigit(rune(ch))):
			j := i
			for j < len(q) && (q[j] == '_' || q[j] == '.' || q[j] < 0x80 && (unicode.IsLetter(rune(q[j])) || unicode.IsDigit(rune(q[j])))) {
				j++
			}
			toks = append(toks, driveToken{'w', q[i:j]})
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q at %d", ch, i)
		}
	}
	return toks, nil
}

// driveQuery is a parsed q: a test on a file.
type driveQuery func(f *DriveFile) bool

type driveQueryParser struct {
	st       *DriveState
	toks     []driveToken
	i        int
	fullText bool // a fullText term was seen: Drive cannot sort then
	trashed  bool // a trashed term was seen
}

// driveParseQuery parses q; without a trashed term, trashed files match too,
// as in Drive.
func driveParseQuery(st *DriveState, q string) (*driveQueryParser, driveQuery, error) {
	toks, err := driveLex(q)
	if err != nil {
		return nil, nil, err
	}
	p := &driveQueryParser{st: st, toks: toks}
	if len(toks) == 0 {
		return p, func(*DriveFile) bool { return true }, nil
	}
	e, err := p.or()
	if err != nil {
		return nil, nil, err
	}
	if p.i < len(p.toks) {
		return nil, nil, fmt.Errorf("unexpected %q", p.toks[p.i].text)
	}
	return p, e, nil
}

func (p *driveQueryParser) peek(kind byte, text string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == kind && p.toks[p.i].text == text
}

func (p *driveQueryParser) next() (driveToken, error) {
	if p.i >= len(p.toks) {
		return driveToken{}, fmt.Errorf("the query ends too soon")
	}
	p.i++
	return p.toks[p.i-1], nil
}

func (p *driveQueryParser) or() (driveQuery, error) {
	left, err := p.and()
	for err == nil && p.peek('w', "or") {
		p.i++
		var right driveQuery
		if right, err = p.and(); err == nil {
			l := left
			left = func(f *DriveFile) bool { return l(f) || right(f) }
		}
	}
	return left, err
}

func (p *driveQueryParser) and() (driveQuery, error) {
	left, err := p.not()
	for err == nil && p.peek('w', "and") {
		p.i++
		var right driveQuery
		if right, err = p.not(); err == nil {
			l := left
			left = func(f *DriveFile) bool { return l(f) && right(f) }
		}
	}
	return left, err
}

func (p *driveQueryParser) not() (driveQuery, error) {
	if p.peek('w', "not") {
		p.i++
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return func(f *DriveFile) bool { return !e(f) }, nil
	}
	if p.peek('p', "(") {
		p.i++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.peek('p', ")") {
			return nil, fmt.Errorf("a ')' is missing")
		}
		p.i++
		return e, nil
	}
	return p.term()
}

func (p *driveQueryParser) term() (driveQuery, error) {
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	if t.kind == 's' {
		// 'ID' in parents
		if in, _ := p.next(); in.kind != 'w' || in.text != "in" {
			return nil, fmt.Errorf("expected in after %q", t.text)
		}
		if coll, _ := p.next(); coll.kind != 'w' || coll.text != "parents" {
			return nil, fmt.Errorf("only 'ID' in parents is understood, not in %q", coll.text)
		}
		id := t.text
		if id == "root" {
			id = DriveRootID
		}
		return func(f *DriveFile) bool { return slices.Contains(f.Parents, id) }, nil
	}
	if t.kind != 'w' {
		return nil, fmt.Errorf("unexpected %q", t.text)
	}
	op, err := p.next()
	if err != nil {
		return nil, err
	}
	val, err := p.next()
	if err != nil {
		return nil, err
	}
	ops := map[string][]string{"name": {"contains", "=", "!="}, "fullText": {"contains"}, "mimeType": {"contains", "=", "!="},
		"trashed": {"=", "!="}, "starred": {"=", "!="}}
	allowed, known := ops[t.text]
	if !known {
		return nil, fmt.Errorf("the query term %q is not understood", t.text)
	}
	if !slices.Contains(allowed, op.text) {
		return nil, fmt.Errorf("%s does not take the operator %q", t.text, op.text)
	}
	negate := op.text == "!="
	if t.text == "trashed" || t.text == "starred" {
		if val.kind != 'w' || val.text != "true" && val.text != "false" {
			return nil, fmt.Errorf("%s compares with true or false, not %q", t.text, val.text)
		}
		want := (val.text == "true") != negate
		if t.text == "trashed" {
			p.trashed = true
			return func(f *DriveFile) bool { return p.st.trashed(f) == want }, nil
		}
		return func(f *DriveFile) bool { return f.Starred == want }, nil
	}
	if val.kind != 's' {
		return nil, fmt.Errorf("%s compares with a quoted string, not %q", t.text, val.text)
	}
	v := val.text
	switch t.text {
	case "name":
		if op.text == "contains" {
			return func(f *DriveFile) bool { return driveWordPrefix(f.Name, v) }, nil
		}
		return func(f *DriveFile) bool { return (f.Name == v) != negate }, nil
	case "fullText":
		p.fullText = true
		return func(f *DriveFile) bool {
			text := f.Name + "\n" + f.Description
			if strings.HasPrefix(f.MimeType, "application/vnd.google-apps.") || strings.HasPrefix(f.MimeType, "text/") {
				text += "\n" + f.Content
			}
			return driveWholeWords(text, v)
		}, nil
	default: // mimeType
		if op.text == "contains" {
			return func(f *DriveFile) bool { return strings.Contains(f.MimeType, v) }, nil
		}
		return func(f *DriveFile) bool { return (f.MimeType == v) != negate }, nil
	}
}

func driveIsWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// driveWordPrefix is name contains: Drive matches the start of a word of
// the name, ignoring case ("Hello" finds "HelloWorld", "World" does not).
func driveWordPrefix(name, v string) bool {
	name, v = strings.ToLower(name), strings.ToLower(v)
	if v == "" {
		return true
	}
	for i := 0; i <= len(name)-len(v); i++ {
		if strings.HasPrefix(name[i:], v) && (i == 0 || !driveIsWordChar(rune(name[i-1]))) {
			return true
		}
	}
	return false
}

// driveWholeWords is fullText contains: the words as whole words, ignoring
// case.
func driveWholeWords(text, v string) bool {
	text, v = strings.ToLower(text), strings.ToLower(v)
	if v == "" {
		return true
	}
	for i := 0; i <= len(text)-len(v); i++ {
		if !strings.HasPrefix(text[i:], v) {
			continue
		}
		end := i + len(v)
		if (i == 0 || !driveIsWordChar(rune(text[i-1]))) && (end == len(text) || !driveIsWordChar(rune(text[end]))) {
			return true
		}
	}
	return false
}

// driveSort orders files by an orderBy parameter.
func driveSort(files []*DriveFile, orderBy string) error {
	type key struct {
		name string
		desc bool
	}
	var keys []key
	for _, part := range strings.Split(orderBy, ",") {
		fields := strings.Fields(part)
		if len(fields) == 0 || len(fields) > 2 || len(fields) == 2 && fields[1] != "desc" {
			return fmt.Errorf("bad sort key %q", part)
		}
		switch fields[0] {
		case "folder", "modifiedTime", "name", "createdTime", "starred":
		default:
			return fmt.Errorf("the sort key %q is not modelled", fields[0])
		}
		keys = append(keys, key{fields[0], len(fields) == 2})
	}
	slices.SortStableFunc(files, func(a, b *DriveFile) int {
		for _, k := range keys {
			var c int
			switch k.name {
			case "folder":
				c = driveBool(a.MimeType == driveFolderType) - driveBool(b.MimeType == driveFolderType)
				c = -c // folders first
			case "modifiedTime":
				c = strings.Compare(a.ModifiedTime, b.ModifiedTime)
			case "createdTime":
				c = strings.Compare(a.CreatedTime, b.CreatedTime)
			case "name":
				c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
			case "starred":
				c = -(driveBool(a.Starred) - driveBool(b.Starred))
			}
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return nil
}

func driveBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// driveInput is the writable part of a file, as create, update and copy
// take it; parents only on create and copy.
type driveInput struct {
	Name             *string           `json:"name"`
	MimeType         *string           `json:"mimeType"`
	Description      *string           `json:"description"`
	Parents          []string          `json:"parents"`
	Starred          *bool             `json:"starred"`
	Trashed          *bool             `json:"trashed"`
	FolderColorRgb   *string           `json:"folderColorRgb"`
	OriginalFilename *string           `json:"originalFilename"`
	Properties       map[string]string `json:"properties"`
	AppProperties    map[string]string `json:"appProperties"`
}

// parent checks a new file's parents and returns its folder.
func (st *DriveState) parent(c *Call, parents []string) *DriveFile {
	if len(parents) > 1 {
		c.Bad("a file can have one parent only: got %v", parents)
		return nil
	}
	id := "root"
	if len(parents) == 1 {
		id = parents[0]
	}
	folder := st.lookup(c, id, driveAllDrives(c))
	if folder == nil {
		return nil
	}
	if folder.MimeType != driveFolderType {
		c.Invalid("The specified parent is not a folder: " + id + ".")
		return nil
	}
	if st.trashed(folder) {
		driveNotFound(c, id)
		return nil
	}
	return folder
}

// create adds a file made by the account in folder.
func (st *DriveState) create(s *Server, in driveInput, mimeType, content string, folder *DriveFile) *DriveFile {
	name := "Untitled"
	if in.Name != nil {
		name = *in.Name
	}
	owner := Email
	if folder.DriveID != "" {
		owner = ""
	}
	f := driveNew(s.NewID("1NeWfIlE"), name, mimeType, folder.ID, owner, driveNow, content)
	f.DriveID = folder.DriveID
	if f.DriveID != "" {
		f.Permissions = []*DrivePermission{driveUserPermission(Email, "organizer")}
		f.LastModifyingUser = driveUser(Email)
	}
	if in.Description != nil {
		f.Description = *in.Description
	}
	if in.Starred != nil {
		f.Starred = *in.Starred
	}
	st.Files = append(st.Files, f)
	return f
}

// driveDecode decodes a JSON part strictly, as Decode does a body.
func driveDecode(c *Call, data []byte, v any) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return c.Bad("the JSON %s does not fit: %v", data, err)
	}
	return true
}

// driveMultipart reads a multipart/related upload: the metadata part (JSON)
// then the media part.
func driveMultipart(c *Call) (meta []byte, mediaType string, media []byte, ok bool) {
	ct, params, err := mime.ParseMediaType(c.R.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/related" || params["boundary"] == "" {
		return nil, "", nil, c.Bad("a multipart upload sent as %q: it must be multipart/related with a boundary", c.R.Header.Get("Content-Type"))
	}
	r := multipart.NewReader(strings.NewReader(string(c.Body)), params["boundary"])
	var parts [][]byte
	var types []string
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", nil, c.Bad("the multipart body does not parse: %v", err)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, "", nil, c.Bad("a part of the multipart body does not read: %v", err)
		}
		parts = append(parts, data)
		types = append(types, part.Header.Get("Content-Type"))
	}
	if len(parts) != 2 {
		return nil, "", nil, c.Bad("a multipart upload has two parts, metadata then media; got %d", len(parts))
	}
	if mt, _, err := mime.ParseMediaType(types[0]); err != nil || mt != "application/json" {
		return nil, "", nil, c.Bad("the metadata part must be application/json, not %q", types[0])
	}
	mt, _, err := mime.ParseMediaType(types[1])
	if err != nil {
		return nil, "", nil, c.Bad("the media part has no valid Content-Type: %q", types[1])
	}
	return parts[0], mt, parts[1], true
}

var driveRange = regexp.MustCompile(`^bytes=(\d+)-(\d*)$`)

// drivePageToken encodes a page's offset as an opaque page token.
func drivePageToken(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("drive-page:" + strconv.Itoa(offset)))
}

func drivePageOffset(tok string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "drive-page:"))
	return n, err == nil && strings.HasPrefix(string(raw), "drive-page:") && n >= 0
}

// drivePage cuts a list at pageSize (def when absent, at most max).
func drivePage[T any](c *Call, items []T, def, max int) (page []T, next string, ok bool) {
	size := def
	if v := c.Query.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return nil, "", c.Bad("pageSize %q is not 1 to %d", v, max)
		}
		size = n
	}
	offset := 0
	if tok := c.Query.Get("pageToken"); tok != "" {
		n, good := drivePageOffset(tok)
		if !good {
			return nil, "", c.Bad("pageToken %q is not one this server gave", tok)
		}
		offset = min(n, len(items))
	}
	items = items[offset:]
	if len(items) > size {
		return items[:size], drivePageToken(offset + size), true
	}
	return items, "", true
}

func init() {
	register("www.googleapis.com", func(s *Server, r *Router) {
		st := s.Drive()

		r.Handle("GET /drive/v3/files", driveRead, func(c *Call) {
			if !c.Params(nil, "q", "fields", "pageSize", "pageToken", "orderBy", "supportsAllDrives", "includeItemsFromAllDrives",
				"corpora", "driveId", "spaces", "includePermissionsForView", "includeLabels", "supportsTeamDrives", "includeTeamDriveItems") || !c.NeedFields() {
				return
			}
			allDrives := c.Query.Get("includeItemsFromAllDrives") == "true"
			if allDrives && !driveAllDrives(c) {
				c.Bad("includeItemsFromAllDrives=true needs supportsAllDrives=true")
				return
			}
			p, match, err := driveParseQuery(st, c.Query.Get("q"))
			if err != nil {
				c.Bad("Invalid Value: q %q: %v", c.Query.Get("q"), err)
				return
			}
			var files []*DriveFile
			for _, f := range st.Files {
				if len(f.Parents) == 0 || f.DriveID != "" && !allDrives || !match(f) {
					continue
				}
				files = append(files, f)
			}
			if orderBy := c.Query.Get("orderBy"); orderBy != "" {
				if p.fullText {
					c.Bad("Sorting is not supported for queries with fullText terms. Results are always in descending relevance order.")
					return
				}
				if err := driveSort(files, orderBy); err != nil {
					c.Bad("orderBy %q: %v", orderBy, err)
					return
				}
			}
			page, next, ok := drivePage(c, files, 100, 1000)
			if !ok {
				return
			}
			views := make([]DriveFile, len(page))
			for i, f := range page {
				views[i] = st.view(f)
			}
			out := map[string]any{"kind": "drive#fileList", "incompleteSearch": false, "files": views}
			if next != "" {
				out["nextPageToken"] = next
			}
			c.Partial(out, driveFileListFields)
		})

		r.Handle("GET /drive/v3/files/{id}", driveRead, func(c *Call) {
			if !c.Params(nil, "fields", "alt", "supportsAllDrives", "acknowledgeAbuse", "includePermissionsForView", "includeLabels", "supportsTeamDrives") {
				return
			}
			switch c.Query.Get("alt") {
			case "", "json":
				if f := st.lookup(c, c.Path("id"), driveAllDrives(c)); f != nil && c.NeedFields() {
					c.Partial(st.view(f), driveFileFields)
				}
				return
			case "media":
			default:
				c.Bad("alt %q is not json or media", c.Query.Get("alt"))
				return
			}
			if !c.Granted(driveContentRead...) {
				writeError(c.W, http.StatusForbidden, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", "insufficientPermissions")
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			if strings.HasPrefix(f.MimeType, "application/vnd.google-apps.") {
				c.Bad("Only files with binary content can be downloaded. Use Export with Docs Editors files.")
				return
			}
			content, status := f.Content, http.StatusOK
			if rng := c.R.Header.Get("Range"); rng != "" {
				m := driveRange.FindStringSubmatch(rng)
				if m == nil {
					c.Bad("the Range header %q is not bytes=FIRST-[LAST]", rng)
					return
				}
				first, _ := strconv.Atoi(m[1])
				last := len(content) - 1
				if m[2] != "" {
					last, _ = strconv.Atoi(m[2])
				}
				if first >= len(content) || last < first {
					c.W.Header().Set("Content-Range", "bytes */"+strconv.Itoa(len(content)))
					writeError(c.W, http.StatusRequestedRangeNotSatisfiable, "OUT_OF_RANGE", "Request range not satisfiable", "requestedRangeNotSatisfiable")
					return
				}
				last = min(last, len(content)-1)
				c.W.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(content)))
				content, status = content[first:last+1], http.StatusPartialContent
			}
			c.W.Header().Set("Content-Type", f.MimeType)
			c.W.WriteHeader(status)
			io.WriteString(c.W, content)
		})

		r.Handle("GET /drive/v3/files/{id}/export", driveExport, func(c *Call) {
			if !c.Params([]string{"mimeType"}) {
				return
			}
			f := st.lookup(c, c.Path("id"), true)
			if f == nil {
				return
			}
			want := c.Query.Get("mimeType")
			formats := map[string][]string{
				driveDocType:    {"text/plain", "text/markdown", "text/html", "application/pdf", "application/rtf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
				driveSheetType:  {"text/csv", "text/tab-separated-values", "application/pdf", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
				driveSlidesType: {"text/plain", "application/pdf", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
			}
			ok, editor := formats[f.MimeType]
			if !editor {
				c.Bad("Export only supports Docs Editors files: %s is %s", f.ID, f.MimeType)
				return
			}
			if !slices.Contains(ok, want) {
				c.Bad("The requested conversion is not supported: %s to %s", f.MimeType, want)
				return
			}
			content := f.Content
			switch want {
			case "text/plain":
				if f.MimeType == driveDocType {
					content = "\ufeff" + content // Docs' text export starts with a byte order mark
				}
			case "text/csv", "text/markdown":
			default:
				c.Bad("the fake does not render %s exports", want)
				return
			}
			c.W.Header().Set("Content-Type", want)
			c.W.WriteHeader(http.StatusOK)
			io.WriteString(c.W, content)
		})

		createParams := []string{"fields", "supportsAllDrives", "ignoreDefaultVisibility", "keepRevisionForever", "ocrLanguage",
			"useContentAsIndexableText", "includePermissionsForView", "includeLabels", "enforceSingleParent", "supportsTeamDrives"}

		r.Handle("POST /drive/v3/files", driveCreate, func(c *Call) {
			var in driveInput
			if !c.Params(nil, createParams...) || !c.NeedFields() || !c.Decode(&in) {
				return
			}
			if in.Trashed != nil {
				c.Bad("a new file cannot be trashed")
				return
			}
			mimeType := "application/octet-stream"
			if in.MimeType != nil {
				mimeType = *in.MimeType
			}
			folder := st.parent(c, in.Parents)
			if folder == nil {
				return
			}
			c.Partial(st.view(st.create(s, in, mimeType, "", folder)), driveFileFields)
		})

		r.Handle("POST /upload/drive/v3/files", driveCreate, func(c *Call) {
			if !c.Params([]string{"uploadType"}, createParams...) || !c.NeedFields() {
				return
			}
			if c.Query.Get("uploadType") != "multipart" {
				c.Bad("uploadType %q: the fake takes multipart uploads only", c.Query.Get("uploadType"))
				return
			}
			meta, mediaType, media, ok := driveMultipart(c)
			var in driveInput
			if !ok || !driveDecode(c, meta, &in) {
				return
			}
			if in.Trashed != nil {
				c.Bad("a new file cannot be trashed")
				return
			}
			mimeType := mediaType
			if in.MimeType != nil && *in.MimeType != "" {
				mimeType = *in.MimeType
			}
			content := string(media)
			if strings.HasPrefix(mimeType, "application/vnd.google-apps.") {
				// Import: the fake converts text to a Google Doc only.
				if mimeType != driveDocType || !slices.Contains([]string{"text/plain", "text/markdown", "text/html"}, mediaType) {
					c.Bad("the fake converts text/plain, text/markdown or text/html to a Google Doc only, not %s to %s", mediaType, mimeType)
					return
				}
				if mediaType == "text/html" {
					content = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(content, "")
				}
			}
			folder := st.parent(c, in.Parents)
			if folder == nil {
				return
			}
			f := st.create(s, in, mimeType, content, folder)
			f.Size = strconv.Itoa(len(f.Content))
			c.Partial(st.view(f), driveFileFields)
		})

		r.Handle("PATCH /drive/v3/files/{id}", driveUpdate, func(c *Call) {
			var in driveInput
			if !c.Params(nil, "fields", "addParents", "removeParents", "supportsAllDrives", "keepRevisionForever", "ocrLanguage",
				"useContentAsIndexableText", "includePermissionsForView", "includeLabels", "enforceSingleParent", "supportsTeamDrives") ||
				!c.NeedFields() || !c.Decode(&in) {
				return
			}
			if in.Parents != nil {
				c.Bad("The parents field is not directly writable in update requests. Use the addParents and removeParents parameters instead.")
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			if f.ID == DriveRootID || f.ID == DriveSharedDriveID {
				c.Bad("the root folder of a drive cannot be changed")
				return
			}
			parents := slices.Clone(f.Parents)
			if rm := c.Query.Get("removeParents"); rm != "" {
				for _, id := range strings.Split(rm, ",") {
					if id == "root" {
						id = DriveRootID
					}
					i := slices.Index(parents, id)
					if i < 0 {
						c.Bad("removeParents: %s is not a parent of %s", id, f.ID)
						return
					}
					parents = slices.Delete(parents, i, i+1)
				}
			}
			var dest *DriveFile
			if add := c.Query.Get("addParents"); add != "" {
				for _, id := range strings.Split(add, ",") {
					folder := st.lookup(c, id, driveAllDrives(c))
					if folder == nil {
						return
					}
					if folder.MimeType != driveFolderType {
						c.Invalid("The specified parent is not a folder: " + id + ".")
						return
					}
					if st.within(folder, f.ID) {
						c.Invalid("A folder cannot be moved into itself or into a folder inside it.")
						return
					}
					if !slices.Contains(parents, folder.ID) {
						parents = append(parents, folder.ID)
					}
					dest = folder
				}
			}
			if len(parents) > 1 {
				c.Bad("Increasing the number of parents is not allowed: %s would be in %v", f.ID, parents)
				return
			}
			if len(parents) == 0 {
				c.Bad("%s would be in no folder: remove a parent only while adding another", f.ID)
				return
			}
			if in.Name != nil {
				if strings.TrimSpace(*in.Name) == "" {
					c.Invalid("Invalid value for name: it must not be empty.")
					return
				}
				f.Name = *in.Name
			}
			if in.Description != nil {
				f.Description = *in.Description
			}
			if in.Starred != nil {
				f.Starred = *in.Starred
			}
			if in.Trashed != nil {
				f.Trashed, f.ExplicitlyTrashed, f.TrashedTime = *in.Trashed, *in.Trashed, ""
				if *in.Trashed {
					f.TrashedTime = driveNow
				}
			}
			if in.MimeType != nil && *in.MimeType != f.MimeType {
				c.Bad("the fake does not change a file's mimeType")
				return
			}
			f.Parents = parents
			if dest != nil && dest.DriveID != f.DriveID {
				f.DriveID = dest.DriveID
				if f.DriveID != "" {
					f.Owners, f.OwnedByMe = nil, false
				}
			}
			c.Partial(st.view(f), driveFileFields)
		})

		r.Handle("POST /drive/v3/files/{id}/copy", driveCopy, func(c *Call) {
			var in driveInput
			if !c.Params(nil, "fields", "supportsAllDrives", "ignoreDefaultVisibility", "keepRevisionForever", "ocrLanguage",
				"includePermissionsForView", "includeLabels", "enforceSingleParent", "supportsTeamDrives") || !c.NeedFields() || !c.Decode(&in) {
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			if f.MimeType == driveFolderType {
				writeError(c.W, http.StatusForbidden, "PERMISSION_DENIED", "This file cannot be copied by the user.", "cannotCopyFile")
				return
			}
			if in.Trashed != nil || in.MimeType != nil && *in.MimeType != f.MimeType {
				c.Bad("a copy is not trashed and keeps the file's type")
				return
			}
			parents := in.Parents
			if parents == nil {
				parents = f.Parents
			}
			folder := st.parent(c, parents)
			if folder == nil {
				return
			}
			if in.Name == nil {
				name := "Copy of " + f.Name
				in.Name = &name
			}
			if in.Description == nil {
				in.Description = &f.Description
			}
			cp := st.create(s, in, f.MimeType, f.Content, folder)
			cp.Size = f.Size
			c.Partial(st.view(cp), driveFileFields)
		})

		r.Handle("DELETE /drive/v3/files/{id}", driveCreate, func(c *Call) {
			if !c.Params(nil, "supportsAllDrives", "enforceSingleParent", "supportsTeamDrives") {
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			if f.ID == DriveRootID || f.ID == DriveSharedDriveID {
				c.Bad("the root folder of a drive cannot be deleted")
				return
			}
			if f.DriveID == "" && !f.OwnedByMe {
				writeError(c.W, http.StatusForbidden, "PERMISSION_DENIED", "The user does not have sufficient permissions for this file.", "insufficientFilePermissions")
				return
			}
			st.Files = slices.DeleteFunc(st.Files, func(g *DriveFile) bool { return st.within(g, f.ID) })
			c.Empty()
		})

		r.Handle("GET /drive/v3/files/{id}/permissions", drivePermsRead, func(c *Call) {
			if !c.Params(nil, "fields", "pageSize", "pageToken", "supportsAllDrives", "useDomainAdminAccess", "includePermissionsForView", "supportsTeamDrives") ||
				!c.NeedFields() {
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			page, next, ok := drivePage(c, f.Permissions, 100, 100)
			if !ok {
				return
			}
			out := map[string]any{"kind": "drive#permissionList", "permissions": page}
			if next != "" {
				out["nextPageToken"] = next
			}
			c.Partial(out, drivePermissionListFields)
		})

		r.Handle("POST /drive/v3/files/{id}/permissions", drivePermsWrite, func(c *Call) {
			var in struct {
				Role               string `json:"role"`
				Type               string `json:"type"`
				EmailAddress       string `json:"emailAddress"`
				Domain             string `json:"domain"`
				AllowFileDiscovery *bool  `json:"allowFileDiscovery"`
				ExpirationTime     string `json:"expirationTime"`
				View               string `json:"view"`
				PendingOwner       *bool  `json:"pendingOwner"`
			}
			if !c.Params(nil, "fields", "sendNotificationEmail", "emailMessage", "supportsAllDrives", "transferOwnership", "moveToNewOwnersRoot",
				"useDomainAdminAccess", "enforceSingleParent", "enforceExpansiveAccess", "supportsTeamDrives") || !c.NeedFields() || !c.Decode(&in) {
				return
			}
			if !slices.Contains([]string{"owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"}, in.Role) {
				c.Bad("role %q is not owner, organizer, fileOrganizer, writer, commenter or reader", in.Role)
				return
			}
			if in.Role == "owner" && c.Query.Get("transferOwnership") != "true" {
				c.Bad("The transferOwnership parameter must be enabled when the permission role is 'owner'.")
				return
			}
			notify, message := c.Query.Get("sendNotificationEmail"), c.Query.Get("emailMessage")
			switch in.Type {
			case "user", "group":
				if !strings.Contains(in.EmailAddress, "@") || in.Domain != "" || in.AllowFileDiscovery != nil {
					c.Bad("a %s permission takes emailAddress only: %+v", in.Type, in)
					return
				}
				if notify != "" && notify != "true" && notify != "false" {
					c.Bad("sendNotificationEmail %q is not true or false", notify)
					return
				}
				if message != "" && notify == "false" {
					c.Bad("emailMessage goes with the notification email, which sendNotificationEmail=false turns off")
					return
				}
			case "domain", "anyone":
				if in.EmailAddress != "" || (in.Type == "domain") != (in.Domain != "") {
					c.Bad("a %s permission takes %s: %+v", in.Type, map[bool]string{true: "domain", false: "no emailAddress or domain"}[in.Type == "domain"], in)
					return
				}
				if notify != "" || message != "" {
					c.Bad("sendNotificationEmail and emailMessage are not allowed for %s permissions", in.Type)
					return
				}
			default:
				c.Bad("type %q is not user, group, domain or anyone", in.Type)
				return
			}
			f := st.lookup(c, c.Path("id"), driveAllDrives(c))
			if f == nil {
				return
			}
			email := strings.ToLower(in.EmailAddress)
			var p *DrivePermission
			for _, old := range f.Permissions {
				if old.Type == in.Type && strings.ToLower(old.EmailAddress) == email && old.Domain == in.Domain {
					p = old
				}
			}
			if p != nil && p.Role == "owner" {
				c.Invalid("The owner's role cannot be changed this way.")
				return
			}
			if p == nil {
				p = &DrivePermission{Kind: "drive#permission", Type: in.Type, EmailAddress: email, Domain: in.Domain}
				switch in.Type {
				case "anyone":
					p.ID = "anyoneWithLink"
					if in.AllowFileDiscovery != nil && *in.AllowFileDiscovery {
						p.ID = "anyone"
					}
				case "domain":
					p.ID = s.NewID("0481726350914") + "k"
				default:
					p.ID = s.NewID("1602934857162")
					if u := drivePeople[email]; u != nil {
						p.ID, p.DisplayName = u.PermissionID, u.DisplayName
					}
				}
				f.Permissions = append(f.Permissions, p)
			}
			p.Role = in.Role
			if in.Type == "domain" || in.Type == "anyone" {
				discover := in.AllowFileDiscovery != nil && *in.AllowFileDiscovery
				p.AllowFileDiscovery = &discover
			}
			c.Partial(p, drivePermissionFields)
		})
	})
}

package fakegoogle

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Google People API v1, the user's contacts:
// https://developers.google.com/people/api/rest/v1/people
//
// searchContacts reads a search cache, as Google's does: a change is found
// only after a warm-up request (an empty query) has refreshed the cache.

const (
	scopeContacts         = "https://www.googleapis.com/auth/contacts"
	scopeContactsReadonly = "https://www.googleapis.com/auth/contacts.readonly"
)

var (
	// The reference lists these for searchContacts, connections.list and,
	// with the profile scopes that reach only people/me, for get.
	contactsRead  = []string{scopeContacts, scopeContactsReadonly}
	contactsWrite = []string{scopeContacts}
)

// contactsFields are the person fields personFields and readMask take.
var contactsFields = []string{"addresses", "ageRanges", "biographies", "birthdays", "calendarUrls", "clientData",
	"coverPhotos", "emailAddresses", "events", "externalIds", "genders", "imClients", "interests", "locales", "locations",
	"memberships", "metadata", "miscKeywords", "names", "nicknames", "occupations", "organizations", "phoneNumbers",
	"photos", "relations", "sipAddresses", "skills", "urls", "userDefined"}

// contactsUpdatable are the fields updatePersonFields takes.
var contactsUpdatable = []string{"addresses", "biographies", "birthdays", "calendarUrls", "clientData", "emailAddresses",
	"events", "externalIds", "genders", "imClients", "interests", "locales", "locations", "memberships", "miscKeywords",
	"names", "nicknames", "occupations", "organizations", "phoneNumbers", "relations", "sipAddresses", "urls", "userDefined"}

// ContactsPerson is a stored contact.
type ContactsPerson struct {
	ID                                   string // the part after people/
	GivenName, FamilyName                string
	Emails, Phones                       []contactsValue
	Organization, Title                  string
	Notes                                string
	Street, City, PostalCode, Country    string
	Birthday                             string // YYYY-MM-DD
	URL                                  string
	Deleted                              bool
	version                              int
	modified                             int // order of the last change, for sortOrder
	concurrentEdit                       bool
	searchGiven, searchFamily, searchOrg string
	searchEmails, searchPhones           []string
}

// contactsValue is an e-mail address or a phone number with its type.
type contactsValue struct{ Value, Type string }

// ContactsState is the People service's contacts.
type ContactsState struct {
	People []*ContactsPerson
	seq    int
}

// Contacts returns the People service's state.
func (s *Server) Contacts() *ContactsState {
	return State(s, "contacts", func() *ContactsState {
		st := &ContactsState{People: []*ContactsPerson{
			{ID: "c5528734263921812345", GivenName: "Grace", FamilyName: "Hopper",
				Emails:       []contactsValue{{"grace@example.com", "work"}},
				Phones:       []contactsValue{{"+1 202-555-0143", "mobile"}},
				Organization: "US Navy", Title: "Rear Admiral", Notes: "Met at the COBOL conference.",
				Street: "1 Navy Yard", City: "Washington", PostalCode: "20374", Country: "United States", Birthday: "1906-12-09"},
			{ID: "c7731902244518876021", GivenName: "Alan", FamilyName: "Turing",
				Emails: []contactsValue{{"alan@example.com", "work"}, {"alan.turing@example.org", "home"}},
				Phones: []contactsValue{{"+44 20 7946 0958", "work"}}, Organization: "Bletchley Park", Title: "Cryptanalyst",
				URL: "https://example.org/turing"},
			{ID: "c1190457723365091187", GivenName: "Margaret", FamilyName: "Hamilton",
				Emails:       []contactsValue{{"margaret@example.com", "work"}},
				Phones:       []contactsValue{{"+1 617-555-0199", "work"}},
				Organization: "MIT Instrumentation Lab", Title: "Director of Software Engineering"},
			{ID: "c3306218874410092256", GivenName: "Edsger", FamilyName: "Dijkstra",
				Emails: []contactsValue{{"edsger@example.com", "home"}}},
		}}
		for _, p := range st.People {
			st.touch(p)
		}
		st.warm()
		return st
	})
}

// touch records a change of p.
func (st *ContactsState) touch(p *ContactsPerson) {
	st.seq++
	p.modified = st.seq
	p.version++
}

// warm refreshes the search cache from the contacts as they are now.
func (st *ContactsState) warm() {
	for _, p := range st.People {
		p.searchGiven, p.searchFamily, p.searchOrg = p.GivenName, p.FamilyName, p.Organization
		p.searchEmails, p.searchPhones = nil, nil
		for _, e := range p.Emails {
			p.searchEmails = append(p.searchEmails, e.Value)
		}
		for _, ph := range p.Phones {
			p.searchPhones = append(p.searchPhones, ph.Value)
		}
	}
}

// EditConcurrently makes another client change the contact right after the
// next time it is read, so that an update based on that read is stale.
func (st *ContactsState) EditConcurrently(id string) {
	for _, p := range st.People {
		if p.ID == id {
			p.concurrentEdit = true
		}
	}
}

func (st *ContactsState) person(id string) *ContactsPerson {
	return first(st.People, func(p *ContactsPerson) bool { return p.ID == id && !p.Deleted })
}

func (p *ContactsPerson) etag() string {
	return "%EgcBAgkuNz0+GgQBAgUHIgx" + base64.RawStdEncoding.EncodeToString([]byte(fmt.Sprintf("%s.%d", p.ID[len(p.ID)-6:], p.version)))
}

func (p *ContactsPerson) sourceID() string {
	n, _ := strconv.ParseUint(p.ID[1:13], 10, 64)
	return fmt.Sprintf("%x", n)
}

// meta is a field's metadata: the first value is primary, every
// value comes from the contact source.
func (p *ContactsPerson) meta(i int) map[string]any {
	m := map[string]any{"source": map[string]string{"type": "CONTACT", "id": p.sourceID()}}
	if i == 0 {
		m["primary"], m["sourcePrimary"] = true, true
	}
	return m
}

func contactsFormattedType(t string) string {
	if t == "" {
		return ""
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// contactsCanonical is a phone number in E.164 when it has a country code.
func contactsCanonical(v string) string {
	if !strings.HasPrefix(strings.TrimSpace(v), "+") {
		return ""
	}
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, v)
	return "+" + digits
}

// render shows a person with the fields of mask (every field when empty).
func (p *ContactsPerson) render(mask []string) map[string]any {
	want := func(f string) bool { return len(mask) == 0 || slices.Contains(mask, f) }
	out := map[string]any{"resourceName": "people/" + p.ID, "etag": p.etag()}
	if want("metadata") {
		out["metadata"] = map[string]any{"objectType": "PERSON", "sources": []map[string]any{{"type": "CONTACT", "id": p.sourceID(),
			"etag": "#" + strings.TrimPrefix(p.etag(), "%"), "updateTime": fmt.Sprintf("2026-11-%02dT09:%02d:00.000Z", 1+p.modified%19, p.version)}}}
	}
	if want("names") && (p.GivenName != "" || p.FamilyName != "") {
		display := strings.TrimSpace(p.GivenName + " " + p.FamilyName)
		lastFirst := p.FamilyName
		if p.GivenName != "" && p.FamilyName != "" {
			lastFirst += ", "
		}
		lastFirst += p.GivenName
		name := map[string]any{"metadata": p.meta(0), "displayName": display, "displayNameLastFirst": lastFirst, "unstructuredName": display}
		if p.GivenName != "" {
			name["givenName"] = p.GivenName
		}
		if p.FamilyName != "" {
			name["familyName"] = p.FamilyName
		}
		out["names"] = []any{name}
	}
	if want("emailAddresses") && len(p.Emails) > 0 {
		var list []any
		for i, e := range p.Emails {
			item := map[string]any{"metadata": p.meta(i), "value": e.Value}
			if e.Type != "" {
				item["type"], item["formattedType"] = e.Type, contactsFormattedType(e.Type)
			}
			list = append(list, item)
		}
		out["emailAddresses"] = list
	}
	if want("phoneNumbers") && len(p.Phones) > 0 {
		var list []any
		for i, ph := range p.Phones {
			item := map[string]any{"metadata": p.meta(i), "value": ph.Value}
			if c := contactsCanonical(ph.Value); c != "" {
				item["canonicalForm"] = c
			}
			if ph.Type != "" {
				item["type"], item["formattedType"] = ph.Type, contactsFormattedType(ph.Type)
			}
			list = append(list, item)
		}
		out["phoneNumbers"] = list
	}
	if want("organizations") && (p.Organization != "" || p.Title != "") {
		org := map[string]any{"metadata": p.meta(0)}
		if p.Organization != "" {
			org["name"] = p.Organization
		}
		if p.Title != "" {
			org["title"] = p.Title
		}
		out["organizations"] = []any{org}
	}
	if want("biographies") && p.Notes != "" {
		out["biographies"] = []any{map[string]any{"metadata": p.meta(0), "value": p.Notes, "contentType": "TEXT_PLAIN"}}
	}
	if want("addresses") && p.City != "" {
		out["addresses"] = []any{map[string]any{"metadata": p.meta(0), "type": "home", "formattedType": "Home",
			"streetAddress": p.Street, "city": p.City, "postalCode": p.PostalCode, "country": p.Country,
			"formattedValue": p.Street + "\n" + p.City + " " + p.PostalCode + "\n" + p.Country}}
	}
	if want("birthdays") && p.Birthday != "" {
		y, _ := strconv.Atoi(p.Birthday[:4])
		m, _ := strconv.Atoi(p.Birthday[5:7])
		d, _ := strconv.Atoi(p.Birthday[8:])
		out["birthdays"] = []any{map[string]any{"metadata": p.meta(0), "date": map[string]int{"year": y, "month": m, "day": d}}}
	}
	if want("urls") && p.URL != "" {
		out["urls"] = []any{map[string]any{"metadata": p.meta(0), "value": p.URL, "type": "homePage", "formattedType": "Home Page"}}
	}
	if want("memberships") {
		out["memberships"] = []any{map[string]any{"metadata": map[string]any{"source": map[string]string{"type": "CONTACT", "id": p.sourceID()}},
			"contactGroupMembership": map[string]string{"contactGroupId": "myContacts", "contactGroupResourceName": "contactGroups/myContacts"}}}
	}
	return out
}

// contactsMask reads a field mask parameter, every field one of valid.
func contactsMask(c *Call, name string, valid []string, required bool) ([]string, bool) {
	v, present := c.Query[name]
	if !present || v[0] == "" {
		if required {
			return nil, c.Bad("%s is required", name)
		}
		return nil, true
	}
	mask := strings.Split(v[0], ",")
	for _, f := range mask {
		if !slices.Contains(valid, f) {
			return nil, c.Bad("%s: %q is not a valid field", name, f)
		}
	}
	return mask, true
}

// contactsInput is the part of a person the tools write.
type contactsInput struct {
	ResourceName *string `json:"resourceName"`
	ETag         *string `json:"etag"`
	Names        *[]struct {
		GivenName  string `json:"givenName"`
		FamilyName string `json:"familyName"`
	} `json:"names"`
	EmailAddresses *[]contactsValueInput `json:"emailAddresses"`
	PhoneNumbers   *[]contactsValueInput `json:"phoneNumbers"`
	Organizations  *[]struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	} `json:"organizations"`
	Biographies *[]struct {
		Value       string `json:"value"`
		ContentType string `json:"contentType"`
	} `json:"biographies"`
}

type contactsValueInput struct {
	Value string `json:"value"`
	Type  string `json:"type"`
}

// present lists the person fields an input sets.
func (in *contactsInput) present() []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"biographies", in.Biographies != nil}, {"emailAddresses", in.EmailAddresses != nil}, {"names", in.Names != nil},
		{"organizations", in.Organizations != nil}, {"phoneNumbers", in.PhoneNumbers != nil}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// apply writes the fields of mask from in into p; a field of the mask the
// input leaves out is cleared, as Google does.
func (in *contactsInput) apply(c *Call, p *ContactsPerson, mask []string) bool {
	for _, f := range mask {
		switch f {
		case "names":
			p.GivenName, p.FamilyName = "", ""
			if in.Names != nil {
				if len(*in.Names) > 1 {
					c.Invalid("Invalid person.names: only one name is allowed for a contact.")
					return false
				}
				for _, n := range *in.Names {
					p.GivenName, p.FamilyName = n.GivenName, n.FamilyName
				}
			}
		case "emailAddresses", "phoneNumbers":
			list := in.EmailAddresses
			if f == "phoneNumbers" {
				list = in.PhoneNumbers
			}
			var values []contactsValue
			if list != nil {
				for _, v := range *list {
					if strings.TrimSpace(v.Value) == "" {
						return c.Bad("%s: an item without a value", f)
					}
					values = append(values, contactsValue{v.Value, v.Type})
				}
			}
			if f == "emailAddresses" {
				p.Emails = values
			} else {
				p.Phones = values
			}
		case "organizations":
			p.Organization, p.Title = "", ""
			if in.Organizations != nil {
				for i, o := range *in.Organizations {
					if i == 0 {
						p.Organization, p.Title = o.Name, o.Title
					}
				}
			}
		case "biographies":
			p.Notes = ""
			if in.Biographies != nil {
				if len(*in.Biographies) > 1 {
					c.Invalid("Invalid person.biographies: only one biography is allowed for a contact.")
					return false
				}
				for _, b := range *in.Biographies {
					if b.ContentType != "" && b.ContentType != "TEXT_PLAIN" && b.ContentType != "TEXT_HTML" {
						return c.Bad("biographies.contentType %q is not TEXT_PLAIN or TEXT_HTML", b.ContentType)
					}
					p.Notes = b.Value
				}
			}
		default:
			// A field the tools never write: the fake keeps no data for it.
		}
	}
	return true
}

// contactsMatches is Google's prefix match of a query on the cached names,
// e-mail addresses, phone numbers and organizations.
func contactsMatches(p *ContactsPerson, query string) bool {
	q := strings.ToLower(strings.TrimSpace(query))
	var texts []string
	for _, t := range []string{p.searchGiven, p.searchFamily, strings.TrimSpace(p.searchGiven + " " + p.searchFamily), p.searchOrg} {
		texts = append(texts, strings.ToLower(t))
		texts = append(texts, strings.Fields(strings.ToLower(t))...)
	}
	for _, e := range p.searchEmails {
		texts = append(texts, strings.ToLower(e))
	}
	for _, t := range texts {
		if t != "" && strings.HasPrefix(t, q) {
			return true
		}
	}
	digits := contactsCanonical("+" + q)
	for _, ph := range p.searchPhones {
		if len(digits) > 3 && strings.HasPrefix(contactsCanonical("+"+ph), digits) {
			return true
		}
	}
	return false
}

func init() {
	register("people.googleapis.com", func(s *Server, r *Router) {
		st := s.Contacts()
		r.Handle("GET /v1/people:searchContacts", contactsRead, func(c *Call) {
			if !c.Params(nil, "query", "readMask", "pageSize", "sources") {
				return
			}
			query, present := c.Query["query"]
			if !present {
				c.Bad("query is required (send query= empty to warm the cache up)")
				return
			}
			mask, ok := contactsMask(c, "readMask", contactsFields, true)
			if !ok {
				return
			}
			size := 10
			if v := c.Query.Get("pageSize"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					c.Bad("pageSize %q is not a number from 0 to 30", v)
					return
				}
				size = min(max(n, 1), 30)
			}
			if query[0] == "" {
				st.warm()
				c.JSON(map[string]any{})
				return
			}
			var results []any
			for _, p := range st.People {
				if !p.Deleted && contactsMatches(p, query[0]) && len(results) < size {
					results = append(results, map[string]any{"person": p.render(mask)})
				}
			}
			if len(results) == 0 {
				c.JSON(map[string]any{})
				return
			}
			c.JSON(map[string]any{"results": results})
		})

		r.Handle("GET /v1/people/me/connections", contactsRead, func(c *Call) {
			if !c.Params(nil, "personFields", "pageSize", "pageToken", "sortOrder", "requestSyncToken", "syncToken", "sources", "requestMask.includeField") {
				return
			}
			mask, ok := contactsMask(c, "personFields", contactsFields, true)
			if !ok {
				return
			}
			size := 100
			if v := c.Query.Get("pageSize"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 1000 {
					c.Bad("pageSize %q is not 1 to 1000", v)
					return
				}
				if n > 0 {
					size = n
				}
			}
			var list []*ContactsPerson
			for _, p := range st.People {
				if !p.Deleted {
					list = append(list, p)
				}
			}
			key := func(p *ContactsPerson) string { return strings.ToLower(p.GivenName + " " + p.FamilyName) }
			switch order := c.Query.Get("sortOrder"); order {
			case "", "LAST_MODIFIED_ASCENDING":
				slices.SortStableFunc(list, func(a, b *ContactsPerson) int { return a.modified - b.modified })
			case "LAST_MODIFIED_DESCENDING":
				slices.SortStableFunc(list, func(a, b *ContactsPerson) int { return b.modified - a.modified })
			case "FIRST_NAME_ASCENDING":
				slices.SortStableFunc(list, func(a, b *ContactsPerson) int { return strings.Compare(key(a), key(b)) })
			case "LAST_NAME_ASCENDING":
				key = func(p *ContactsPerson) string { return strings.ToLower(p.FamilyName + " " + p.GivenName) }
				slices.SortStableFunc(list, func(a, b *ContactsPerson) int { return strings.Compare(key(a), key(b)) })
			default:
				c.Bad("sortOrder %q is not one of the API's", order)
				return
			}
			total := len(list)
			offset := 0
			if tok := c.Query.Get("pageToken"); tok != "" {
				raw, err := base64.RawURLEncoding.DecodeString(tok)
				n, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), "page:"))
				if err != nil || err2 != nil || n < 0 || n > total {
					c.Bad("pageToken %q is not one this list gave", tok)
					return
				}
				offset = n
			}
			list = list[offset:]
			out := map[string]any{"totalPeople": total, "totalItems": total}
			if len(list) > size {
				list = list[:size]
				out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte("page:" + strconv.Itoa(offset+size)))
			}
			if len(list) > 0 {
				var people []any
				for _, p := range list {
					people = append(people, p.render(mask))
				}
				out["connections"] = people
			}
			c.JSON(out)
		})

		r.Handle("GET /v1/people/{id}", contactsRead, func(c *Call) {
			if !c.Params(nil, "personFields", "requestMask.includeField", "sources") {
				return
			}
			if strings.Contains(c.Path("id"), ":") {
				c.Bad("GET people/%s: no such method", c.Path("id"))
				return
			}
			mask, ok := contactsMask(c, "personFields", contactsFields, true)
			if !ok {
				return
			}
			p := st.person(c.Path("id"))
			if p == nil {
				c.NotFound()
				return
			}
			out := p.render(mask)
			if p.concurrentEdit {
				p.concurrentEdit = false
				st.touch(p)
			}
			c.JSON(out)
		})

		r.Handle("POST /v1/people:createContact", contactsWrite, func(c *Call) {
			var in contactsInput
			if !c.Params(nil, "personFields", "sources") || !c.Decode(&in) {
				return
			}
			mask, ok := contactsMask(c, "personFields", contactsFields, false)
			if !ok {
				return
			}
			if in.ETag != nil || in.ResourceName != nil {
				c.Bad("a new contact has no etag or resourceName yet")
				return
			}
			p := &ContactsPerson{ID: fmt.Sprintf("c%019d", 4417000000000000000+int64(len(st.People))*7919)}
			if !in.apply(c, p, in.present()) {
				return
			}
			st.People = append(st.People, p)
			st.touch(p)
			c.JSON(p.render(mask))
		})

		r.Handle("PATCH /v1/people/{id}", contactsWrite, func(c *Call) {
			var in contactsInput
			if !c.Params([]string{"updatePersonFields"}, "personFields", "sources") || !c.Decode(&in) {
				return
			}
			id, ok := c.CustomMethod("id", "updateContact")
			if !ok {
				return
			}
			update, ok := contactsMask(c, "updatePersonFields", contactsUpdatable, true)
			if !ok {
				return
			}
			mask, ok := contactsMask(c, "personFields", contactsFields, false)
			if !ok {
				return
			}
			for _, f := range in.present() {
				if !slices.Contains(update, f) {
					c.Bad("the body sets %s, which updatePersonFields leaves out: Google ignores it", f)
					return
				}
			}
			if in.ResourceName != nil && *in.ResourceName != "people/"+id {
				c.Bad("the body's resourceName %s is not people/%s", *in.ResourceName, id)
				return
			}
			p := st.person(id)
			if p == nil {
				c.NotFound()
				return
			}
			if in.ETag == nil || *in.ETag == "" {
				c.Bad("updateContact needs the person's etag: Google answers \"Request must set person.etag or person.metadata.sources.etag for the source that is being updated.\"")
				return
			}
			if *in.ETag != p.etag() {
				writeError(c.W, 400, "FAILED_PRECONDITION",
					"Request person.etag is different than the current person.etag. Clear local cache and get the latest person.", "failedPrecondition")
				return
			}
			next := *p
			if !in.apply(c, &next, update) {
				return
			}
			*p = next
			st.touch(p)
			c.JSON(p.render(mask))
		})

		r.Handle("DELETE /v1/people/{id}", contactsWrite, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			id, ok := c.CustomMethod("id", "deleteContact")
			if !ok {
				return
			}
			p := st.person(id)
			if p == nil {
				c.NotFound()
				return
			}
			p.Deleted = true
			c.JSON(map[string]any{})
		})
	})
}

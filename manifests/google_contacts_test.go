package manifests_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_contacts", "contacts_list", `{}`})
}

// The fake's seed contacts.
const (
	contactsGrace    = "people/c5528734263921812345"
	contactsAlan     = "people/c7731902244518876021"
	contactsMargaret = "people/c1190457723365091187"
	contactsEdsger   = "people/c3306218874410092256"
	contactsBrief    = "names,emailAddresses,phoneNumbers,organizations"
)

// contactsRaw sends a request to the fake People API directly, for what
// the tools never send.
func contactsRaw(t *testing.T, g *gtest, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, g.G.URL+"/people.googleapis.com"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+fakegoogle.Token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestGoogleContactsRead(t *testing.T) {
	g := newGoogle(t)

	g.Call("contacts_search", `{"query":"gra"}`, "1 contact match \"gra\":\n- Grace Hopper (id: "+contactsGrace+")\n"+
		"  email: grace@example.com · phone: +1 202-555-0143 · US Navy, Rear Admiral")
	reqs := g.G.Requests()
	warm, search := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if warm.Host != "people.googleapis.com" || warm.Path != "/v1/people:searchContacts" || len(warm.Query["query"]) != 1 || warm.Query.Get("query") != "" || warm.Query.Get("readMask") != "names" {
		t.Errorf("warm-up request: %s %s %v", warm.Host, warm.Path, warm.Query)
	}
	if search.Path != "/v1/people:searchContacts" || search.Query.Get("query") != "gra" || search.Query.Get("readMask") != contactsBrief || search.Query.Get("pageSize") != "10" {
		t.Errorf("search request: %s %v", search.Path, search.Query)
	}
	g.Call("contacts_search", `{"query":"alan.turing@","max_results":30}`, "1 contact match", "- Alan Turing (id: "+contactsAlan+")",
		"email: alan@example.com, alan.turing@example.org · phone: +44 20 7946 0958 · Bletchley Park, Cryptanalyst")
	g.Call("contacts_search", `{"query":"+44 20"}`, "Alan Turing")
	g.Call("contacts_search", `{"query":"MIT"}`, "- Margaret Hamilton (id: "+contactsMargaret+")")
	g.Call("contacts_search", `{"query":"zzz"}`, `No contact matches "zzz"`)
	g.Fail("contacts_search", `{"query":"a","max_results":31}`, "max_results must be 1 to 30")

	g.Call("contacts_list", `{}`, "4 of 4 contacts:\n"+
		"- Alan Turing (id: "+contactsAlan+")\n  email: alan@example.com, alan.turing@example.org · phone: +44 20 7946 0958 · Bletchley Park, Cryptanalyst\n"+
		"- Edsger Dijkstra (id: "+contactsEdsger+")\n  email: edsger@example.com\n"+
		"- Grace Hopper (id: "+contactsGrace+")\n", "- Margaret Hamilton")
	if r := g.Last(); r.Path != "/v1/people/me/connections" || r.Query.Get("personFields") != contactsBrief ||
		r.Query.Get("pageSize") != "50" || r.Query.Get("sortOrder") != "FIRST_NAME_ASCENDING" {
		t.Errorf("list request: %s %v", r.Path, r.Query)
	}
	out := g.Call("contacts_list", `{"sort_order":"last_name","max_results":2}`, "2 of 4 contacts:\n- Edsger Dijkstra", "- Margaret Hamilton", "(More contacts: call again with page_token")
	if g.Last().Query.Get("sortOrder") != "LAST_NAME_ASCENDING" {
		t.Errorf("sort order: %v", g.Last().Query)
	}
	m := regexp.MustCompile(`page_token ("[^"]+")`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no page token in:\n%s", out)
	}
	out = g.Call("contacts_list", `{"sort_order":"last_name","max_results":2,"page_token":`+m[1]+`}`, "2 of 4 contacts:\n- Grace Hopper", "- Alan Turing")
	if strings.Contains(out, "More contacts") || strings.Contains(out, "Dijkstra") {
		t.Errorf("second page:\n%s", out)
	}
	g.Call("contacts_list", `{"sort_order":"recently_changed","max_results":1}`, "1 of 4 contacts:\n- Edsger Dijkstra")
	g.Fail("contacts_list", `{"sort_order":"age"}`, "sort_order must be one of first_name, last_name, recently_changed, oldest_changed")

	g.Call("contacts_get", `{"resource_name":"`+contactsGrace+`"}`, "Name: Grace Hopper\nId: "+contactsGrace+"\n",
		"Email: grace@example.com (Work)", "Phone: +1 202-555-0143 (Mobile)", "Organization: US Navy, Rear Admiral",
		"Address (Home): 1 Navy Yard, Washington 20374, United States", "Birthday: 1906-12-09", "Notes: Met at the COBOL conference.")
	if r := g.Last(); r.Path != "/v1/people/c5528734263921812345" ||
		r.Query.Get("personFields") != "names,nicknames,emailAddresses,phoneNumbers,organizations,addresses,birthdays,biographies,urls" {
		t.Errorf("get request: %s %v", r.Path, r.Query)
	}
	g.Call("contacts_get", `{"resource_name":"c7731902244518876021"}`, "Name: Alan Turing", "Email: alan@example.com (Work)\nEmail: alan.turing@example.org (Home)",
		"Website: https://example.org/turing")
	g.Fail("contacts_get", `{"resource_name":"people/c404"}`, "HTTP 404", "No contact people/c404: find its id with contacts_search or contacts_list.")
	g.Fail("contacts_get", `{"resource_name":"people/c1/edit"}`, "resource_name must be a contact's id such as people/c")
}

func TestGoogleContactsWrite(t *testing.T) {
	g := newGoogle(t)

	out := g.Call("contacts_create", `{"given_name":"Katherine","family_name":"Johnson","emails":["katherine@example.com"],
		"phones":["+1 757-555-0100"],"organization":"NASA","job_title":"Mathematician","notes":"Orbital mechanics"}`,
		"Created the contact:\n- Katherine Johnson (id: people/c", "email: katherine@example.com · phone: +1 757-555-0100 · NASA, Mathematician")
	r := g.Last()
	if r.Method != "POST" || r.Path != "/v1/people:createContact" || r.Query.Get("personFields") != contactsBrief ||
		string(r.Body) != `{"names":[{"givenName":"Katherine","familyName":"Johnson"}],"emailAddresses":[{"value":"katherine@example.com"}],`+
			`"phoneNumbers":[{"value":"+1 757-555-0100"}],"organizations":[{"name":"NASA","title":"Mathematician"}],`+
			`"biographies":[{"value":"Orbital mechanics","contentType":"TEXT_PLAIN"}]}` {
		t.Errorf("create request: %s %s %v %s", r.Method, r.Path, r.Query, r.Body)
	}
	katherine := regexp.MustCompile(`people/c\d+`).FindString(out)

	// Google's search cache misses a new contact until a warm-up request;
	// the tool sends one before each search.
	if status, body := contactsRaw(t, g, "GET", "/v1/people:searchContacts?query=kath&readMask=names", ""); status != 200 || strings.Contains(body, "Katherine") {
		t.Errorf("the cold cache found the new contact: %d %s", status, body)
	}
	g.Call("contacts_search", `{"query":"kath"}`, "- Katherine Johnson (id: "+katherine+")")
	g.Call("contacts_get", `{"resource_name":"`+katherine+`"}`, "Notes: Orbital mechanics")
	g.Call("contacts_create", `{"emails":["ops@example.com"]}`, "- (no name) (id: people/c", "email: ops@example.com")
	if string(g.Last().Body) != `{"emailAddresses":[{"value":"ops@example.com"}]}` {
		t.Errorf("e-mail only body: %s", g.Last().Body)
	}
	n := len(g.G.Requests())
	g.Fail("contacts_create", `{"given_name":"X","emails":["not an email"]}`, `emails: "not an email" is not an e-mail address`)
	g.Fail("contacts_create", `{"given_name":"X","phones":["call me"]}`, `phones: "call me" is not a phone number`)
	g.Fail("contacts_create", `{"notes":"someone"}`, "Give at least a name, an e-mail address, a phone number or an organization")
	if len(g.G.Requests()) != n {
		t.Errorf("bad arguments reached Google")
	}

	// An update reads the contact for its etag, keeps the part of the
	// organization not given, and names the fields it replaces.
	g.Call("contacts_update", `{"resource_name":"`+contactsGrace+`","job_title":"Commodore","phones":["+1 202-555-0143","+1 202-555-0199"]}`,
		"Updated the contact:\n- Grace Hopper (id: "+contactsGrace+")\n  email: grace@example.com · phone: +1 202-555-0143, +1 202-555-0199 · US Navy, Commodore")
	reqs := g.G.Requests()
	get, patch := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if get.Method != "GET" || get.Path != "/v1/people/c5528734263921812345" || get.Query.Get("personFields") != "organizations,phoneNumbers" {
		t.Errorf("read before update: %s %s %v", get.Method, get.Path, get.Query)
	}
	var body map[string]any
	json.Unmarshal(patch.Body, &body)
	etag, _ := body["etag"].(string)
	if patch.Method != "PATCH" || patch.Path != "/v1/people/c5528734263921812345:updateContact" ||
		patch.Query.Get("updatePersonFields") != "organizations,phoneNumbers" || patch.Query.Get("personFields") != contactsBrief ||
		!strings.HasPrefix(etag, "%") || calendarJSON(body["organizations"]) != `[{"name":"US Navy","title":"Commodore"}]` ||
		calendarJSON(body["phoneNumbers"]) != `[{"value":"+1 202-555-0143"},{"value":"+1 202-555-0199"}]` || len(body) != 3 {
		t.Errorf("update request: %s %s %v %s", patch.Method, patch.Path, patch.Query, patch.Body)
	}
	// The etag the update used is stale now: Google refuses it.
	status, answer := contactsRaw(t, g, "PATCH", "/v1/people/c5528734263921812345:updateContact?updatePersonFields=biographies",
		`{"etag":"`+etag+`","biographies":[{"value":"x","contentType":"TEXT_PLAIN"}]}`)
	if status != 400 || !strings.Contains(answer, "FAILED_PRECONDITION") || !strings.Contains(answer, "person.etag is different") {
		t.Errorf("stale etag: %d %s", status, answer)
	}

	g.Call("contacts_update", `{"resource_name":"c1190457723365091187","family_name":"Hamilton-Smith"}`, "- Margaret Hamilton-Smith (id: "+contactsMargaret+")")
	if b := string(g.G.Requests()[len(g.G.Requests())-1].Body); !strings.Contains(b, `"names":[{"givenName":"Margaret","familyName":"Hamilton-Smith"}]`) ||
		g.Last().Query.Get("updatePersonFields") != "names" {
		t.Errorf("name update: %v %s", g.Last().Query, b)
	}
	out = g.Call("contacts_update", `{"resource_name":"`+contactsAlan+`","emails":[],"organization":"","notes":""}`, "- Alan Turing (id: "+contactsAlan+")", "Cryptanalyst")
	json.Unmarshal(g.Last().Body, &body)
	if strings.Contains(out, "email:") || g.Last().Query.Get("updatePersonFields") != "biographies,emailAddresses,organizations" ||
		calendarJSON(body["emailAddresses"]) != `[]` || calendarJSON(body["organizations"]) != `[{"title":"Cryptanalyst"}]` || calendarJSON(body["biographies"]) != `[]` {
		t.Errorf("clearing update: %v %s\n%s", g.Last().Query, g.Last().Body, out)
	}

	// Someone else changes the contact between the read and the write: the
	// tool reads it again and retries once.
	g.G.Contacts().EditConcurrently("c3306218874410092256")
	n = len(g.G.Requests())
	g.Call("contacts_update", `{"resource_name":"`+contactsEdsger+`","notes":"Shortest paths"}`, "Updated the contact:\n- Edsger Dijkstra")
	reqs = g.G.Requests()[n:]
	var methods []string
	for _, r := range reqs {
		methods = append(methods, r.Method)
	}
	if strings.Join(methods, " ") != "GET PATCH GET PATCH" || string(reqs[1].Body) == string(reqs[3].Body) {
		t.Errorf("retry after a stale etag: %v", methods)
	}
	g.Call("contacts_get", `{"resource_name":"`+contactsEdsger+`"}`, "Notes: Shortest paths")

	g.Fail("contacts_update", `{"resource_name":"`+contactsEdsger+`"}`, "Nothing to change")
	g.Fail("contacts_update", `{"resource_name":"people/c404","notes":"x"}`, "HTTP 404", "No contact people/c404: find its id with contacts_search or contacts_list.")

	g.Call("contacts_delete", `{"resource_name":"`+contactsEdsger+`"}`, "Deleted the contact "+contactsEdsger+".")
	if r := g.Last(); r.Method != "DELETE" || r.Path != "/v1/people/c3306218874410092256:deleteContact" || len(r.Query) != 0 {
		t.Errorf("delete request: %s %s %v", r.Method, r.Path, r.Query)
	}
	g.Fail("contacts_get", `{"resource_name":"`+contactsEdsger+`"}`, "HTTP 404")
	g.Fail("contacts_delete", `{"resource_name":"`+contactsEdsger+`"}`, "HTTP 404", "No contact "+contactsEdsger)
	out = g.Call("contacts_list", `{}`, "5 of 5 contacts:", "Katherine Johnson")
	if strings.Contains(out, "Dijkstra") {
		t.Errorf("deleted contact listed:\n%s", out)
	}

	// Read-only access searches but cannot change.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/contacts.readonly"))
	g.Call("contacts_search", `{"query":"grace"}`, "Grace Hopper")
	g.Fail("contacts_create", `{"given_name":"X"}`, "HTTP 403", "https://www.googleapis.com/auth/contacts,")
	g.Fail("contacts_delete", `{"resource_name":"`+contactsGrace+`"}`, "HTTP 403", "https://www.googleapis.com/auth/contacts,")
	g.Token(fakegoogle.Token)
}

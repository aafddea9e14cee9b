package manifests_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_calendar", "calendar_list_calendars", `{}`})
}

// The fake's seed: the primary calendar of ada@example.com in
// Europe/Paris (UTC+01:00 in November 2026).
const (
	calendarTeam     = "c_8f2a1b3c4d5e6f7a9b0c@group.calendar.google.com"
	calendarSync     = "4k2p9s7q1m3n5b8c0d6e"
	calendarLunch    = "7f3h5j9l2n4p6r8t0v1b"
	calendarSeries   = "2b4d6f8h0j1l3n5p7r9t"
	calendarDentist  = "9e8d7c6b5a4v3u2t1s0r"
	calendarEventsAt = "/calendar/v3/calendars/primary/events"
)

// calendarBody decodes the JSON body of the last request.
func calendarBody(t *testing.T, g *gtest) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(g.Last().Body, &body); err != nil {
		t.Fatalf("body %s: %v", g.Last().Body, err)
	}
	return body
}

func calendarJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestGoogleCalendarRead(t *testing.T) {
	g := newGoogle(t)

	g.Call("calendar_list_calendars", `{}`, "3 calendars:",
		"- ada@example.com (id: primary, also ada@example.com) [primary] — owner, Europe/Paris",
		"- Team Events (id: "+calendarTeam+") — writer, Europe/Paris\n  Shared calendar of the engineering team",
		"- Holidays in France (id: en.french#holiday@group.v.calendar.google.com) — reader (read-only), Europe/Paris")
	if r := g.Last(); r.Host != "www.googleapis.com" || r.Path != "/calendar/v3/users/me/calendarList" || r.Query.Get("maxResults") != "250" {
		t.Errorf("calendar list request: %s %s %v", r.Host, r.Path, r.Query)
	}
	out := g.Call("calendar_list_calendars", `{"writable_only":true}`, "2 calendars:", "Team Events")
	if strings.Contains(out, "Holidays") || g.Last().Query.Get("minAccessRole") != "writer" {
		t.Errorf("writable only: %v\n%s", g.Last().Query, out)
	}

	// A day as a date: the query is widened, the answer kept to the day in
	// the calendar's zone (the all-day birthday on the 21st is left out).
	out = g.Call("calendar_list_events", `{"time_min":"2026-11-20","time_max":"2026-11-20"}`,
		"2 events in ada@example.com (times in Europe/Paris):",
		"- Team sync (id: "+calendarSync+")\n  Fri 2026-11-20 10:00–10:30 (Europe/Paris, UTC+01:00) · Room 4, Paris office · 4 attendees · Meet: https://meet.google.com/ghi-jklm-nop",
		"- Lunch with Grace (id: "+calendarLunch+")\n  Fri 2026-11-20 12:30–13:30 (Europe/Paris, UTC+01:00) · Café Procope, 13 Rue de l'Ancienne Comédie, Paris · 2 attendees")
	if strings.Contains(out, "birthday") {
		t.Errorf("the day's list has the next day's event:\n%s", out)
	}
	q := g.Last().Query
	if g.Last().Path != calendarEventsAt || q.Get("timeMin") != "2026-11-19T10:00:00Z" || q.Get("timeMax") != "2026-11-21T14:00:00Z" ||
		q.Get("singleEvents") != "true" || q.Get("orderBy") != "startTime" || q.Get("maxResults") != "70" || !strings.Contains(q.Get("fields"), "items(id,") {
		t.Errorf("list query: %s %v", g.Last().Path, q)
	}

	// Instants with offsets go as they are; series are expanded into their
	// occurrences, all-day events shown as dates.
	g.Call("calendar_list_events", `{"time_min":"2026-11-21T00:00:00+01:00","time_max":"2026-12-01T00:00:00+01:00"}`,
		"5 events in ada@example.com",
		"- Marie's birthday (id: 0a9s8d7f6g5h4j3k2l1m)\n  Sat 2026-11-21 (all day)\n",
		"- 1:1 with Alan (id: "+calendarSeries+"_20261123T130000Z)\n  Mon 2026-11-23 14:00–14:30 (Europe/Paris, UTC+01:00) · 2 attendees · repeats (series id: "+calendarSeries+")",
		"- Offsite in Lyon (id: 5c7e9g1i3k5m7o9q1s3u)\n  Tue 2026-11-24 to Wed 2026-11-25 (all day) · Lyon",
		"- Dentist (id: "+calendarDentist+")\n  Fri 2026-11-27 09:00–09:45",
		"(id: "+calendarSeries+"_20261130T130000Z)\n  Mon 2026-11-30 14:00–14:30")
	if q := g.Last().Query; q.Get("timeMin") != "2026-11-21T00:00:00+01:00" || q.Get("timeMax") != "2026-12-01T00:00:00+01:00" || q.Get("maxResults") != "25" {
		t.Errorf("instant query: %v", q)
	}

	g.Call("calendar_list_events", `{"time_min":"2026-11-01T00:00:00Z","time_max":"2026-11-30T00:00:00Z","query":"alan"}`,
		`5 events matching "alan"`, "Mon 2026-11-02 14:00", "Mon 2026-11-09 14:00", "Mon 2026-11-16 14:00", "- Team sync", "Mon 2026-11-23 14:00")
	if g.Last().Query.Get("q") != "alan" {
		t.Errorf("search query: %v", g.Last().Query)
	}
	g.Call("calendar_list_events", `{"time_min":"2026-11-20T00:00:00Z","time_max":"2026-11-30T00:00:00Z","max_results":2}`,
		"2 events", "Team sync", "Lunch with Grace", "(More events exist: narrow the time range or raise max_results, up to 250.)")
	g.Call("calendar_list_events", `{"time_min":"2026-11-20T00:00:00Z","time_max":"2026-11-21T00:00:00Z","time_zone":"America/New_York"}`,
		"(times in America/New_York)", "Fri 2026-11-20 04:00–04:30 (America/New_York, UTC-05:00)")
	if g.Last().Query.Get("timeZone") != "America/New_York" {
		t.Errorf("zone query: %v", g.Last().Query)
	}
	g.Call("calendar_list_events", `{"calendar_id":"`+calendarTeam+`","time_min":"2026-11-25","time_max":"2026-11-25"}`,
		"1 event in Team Events", "- Quarterly planning (id: 3m5o7q9s1u3a5c7e9g1i)\n  Wed 2026-11-25 14:00–16:00", "Meet: https://meet.google.com/qrs-tuvw-xyz")
	if g.Last().Path != "/calendar/v3/calendars/"+calendarTeam+"/events" {
		t.Errorf("team calendar path: %s", g.Last().Path)
	}
	g.Call("calendar_list_events", `{"time_min":"2026-12-22","time_max":"2026-12-31"}`, "No events in the calendar primary in that time range.")

	// Without a range: from now, for a week.
	g.Call("calendar_list_events", `{}`)
	min, err1 := time.Parse(time.RFC3339, g.Last().Query.Get("timeMin"))
	max, err2 := time.Parse(time.RFC3339, g.Last().Query.Get("timeMax"))
	if err1 != nil || err2 != nil || max.Sub(min) != 7*24*time.Hour {
		t.Errorf("default range: %v", g.Last().Query)
	}

	n := len(g.G.Requests())
	g.Fail("calendar_list_events", `{"time_min":"20/11/2026"}`, `time_min "20/11/2026" is not a date or a date-time`, "2026-11-20T09:30:00+01:00")
	g.Fail("calendar_list_events", `{"time_min":"2026-02-30"}`, "is not a real date or time")
	g.Fail("calendar_list_events", `{"time_min":"2026-11-20T10:00:00Z","time_max":"2026-11-20T09:00:00Z"}`, "time_max must be after time_min")
	g.Fail("calendar_list_events", `{"time_max":"2026-11-20"}`, "Give time_min with time_max")
	g.Fail("calendar_list_events", `{"time_min":"2026-11-20","time_zone":"Paris time"}`, "time_zone must be an IANA time zone name")
	if len(g.G.Requests()) != n {
		t.Errorf("bad arguments reached Google")
	}
	g.Fail("calendar_list_events", `{"calendar_id":"nope@group.calendar.google.com"}`, "HTTP 404",
		"No calendar nope@group.calendar.google.com: find its id with calendar_list_calendars")

	g.Call("calendar_get_event", `{"event_id":"`+calendarSync+`"}`,
		"Title: Team sync\nId: "+calendarSync+"\nCalendar: primary\nStatus: confirmed\nWhen: Fri 2026-11-20 10:00–10:30 (Europe/Paris, UTC+01:00)",
		"Location: Room 4, Paris office", "Organizer: ada@example.com (you)", "Attendees (4):",
		"- ada@example.com (you, organizer): accepted", "- Grace Hopper <grace@example.com>: accepted",
		"- Alan Turing <alan@example.com>: needsAction", "- margaret@example.com (optional): tentative",
		"Conference: https://meet.google.com/ghi-jklm-nop (Google Meet)", "Dial-in: +33 1 87 40 42 61, PIN 512794638",
		"Description: Weekly status round: blockers first, then demos.", "Link: https://www.google.com/calendar/event?eid=")
	if r := g.Last(); r.Path != calendarEventsAt+"/"+calendarSync || r.Query.Get("maxAttendees") != "100" {
		t.Errorf("get request: %s %v", r.Path, r.Query)
	}
	g.Call("calendar_get_event", `{"event_id":"`+calendarSeries+`"}`, "When: Mon 2026-11-02 14:00–14:30", "Recurrence: RRULE:FREQ=WEEKLY;COUNT=8;BYDAY=MO")
	g.Call("calendar_get_event", `{"event_id":"`+calendarSeries+`_20261123T130000Z","time_zone":"Europe/London"}`,
		"When: Mon 2026-11-23 13:00–13:30 (Europe/London, UTC)",
		"Occurrence of the recurring event "+calendarSeries+", originally 2026-11-23T13:00:00Z")
	g.Fail("calendar_get_event", `{"event_id":"nope"}`, "HTTP 404",
		"No event nope in the calendar primary: find the event's id with calendar_list_events")
	g.Fail("calendar_get_event", `{"event_id":" "}`, "Missing event_id")
}

func TestGoogleCalendarWrite(t *testing.T) {
	g := newGoogle(t)

	out := g.Call("calendar_create_event", `{"summary":"Design review","start":"2026-11-26T15:00:00","end":"2026-11-26T16:30:00",
		"time_zone":"Europe/Paris","attendees":["grace@example.com","alan@example.com"],"location":"Room 2",
		"description":"Review the Q1 design","add_meet":true}`,
		`Created the event "Design review" (id: `, "in the calendar primary",
		"When: Thu 2026-11-26 15:00–16:30 (Europe/Paris, UTC+01:00)", "Location: Room 2",
		"Attendees: grace@example.com, alan@example.com", "Google Meet: https://meet.google.com/kfp-", "Invitations sent (all).")
	r := g.Last()
	if r.Method != "POST" || r.Path != calendarEventsAt || r.Query.Get("sendUpdates") != "all" || r.Query.Get("conferenceDataVersion") != "1" {
		t.Errorf("create request: %s %s %v", r.Method, r.Path, r.Query)
	}
	body := calendarBody(t, g)
	if calendarJSON(body["start"]) != `{"dateTime":"2026-11-26T15:00:00","timeZone":"Europe/Paris"}` ||
		calendarJSON(body["end"]) != `{"dateTime":"2026-11-26T16:30:00","timeZone":"Europe/Paris"}` ||
		calendarJSON(body["attendees"]) != `[{"email":"grace@example.com"},{"email":"alan@example.com"}]` ||
		body["summary"] != "Design review" || body["location"] != "Room 2" || body["description"] != "Review the Q1 design" {
		t.Errorf("create body: %s", r.Body)
	}
	create, _ := body["conferenceData"].(map[string]any)["createRequest"].(map[string]any)
	if id, _ := create["requestId"].(string); !strings.HasPrefix(id, "toolroute-") || calendarJSON(create["conferenceSolutionKey"]) != `{"type":"hangoutsMeet"}` {
		t.Errorf("Meet request: %v", create)
	}
	g.Call("calendar_list_events", `{"time_min":"2026-11-26","time_max":"2026-11-26"}`, "1 event", "- Design review (id: ", "3 attendees",
		"Thu 2026-11-26 15:00–16:30 (Europe/Paris, UTC+01:00) · Room 2 · 3 attendees · Meet: https://meet.google.com/kfp-")

	g.Call("calendar_create_event", `{"summary":"Conference","start":"2026-12-02","end":"2026-12-04","send_updates":"none"}`,
		`Created the event "Conference"`, "When: Wed 2026-12-02 to Fri 2026-12-04 (all day)")
	body = calendarBody(t, g)
	if calendarJSON(body["start"]) != `{"date":"2026-12-02"}` || calendarJSON(body["end"]) != `{"date":"2026-12-05"}` || g.Last().Query.Get("sendUpdates") != "none" ||
		body["attendees"] != nil || body["conferenceData"] != nil || g.Last().Query.Has("conferenceDataVersion") {
		t.Errorf("all-day body: %s %v", g.Last().Body, g.Last().Query)
	}
	g.Call("calendar_create_event", `{"summary":"Holiday","start":"2026-12-24"}`, "When: Thu 2026-12-24 (all day)")
	if calendarJSON(calendarBody(t, g)["end"]) != `{"date":"2026-12-25"}` {
		t.Errorf("one-day body: %s", g.Last().Body)
	}

	g.Call("calendar_create_event", `{"summary":"Standup","start":"2026-11-30T09:30:00+01:00","time_zone":"Europe/Paris","recurrence":["FREQ=DAILY;COUNT=5"]}`,
		"When: Mon 2026-11-30 09:30–10:30", "Repeats: RRULE:FREQ=DAILY;COUNT=5")
	body = calendarBody(t, g)
	if calendarJSON(body["recurrence"]) != `["RRULE:FREQ=DAILY;COUNT=5"]` || calendarJSON(body["end"]) != `{"dateTime":"2026-11-30T10:30:00+01:00","timeZone":"Europe/Paris"}` {
		t.Errorf("recurring body: %s", g.Last().Body)
	}
	g.Call("calendar_list_events", `{"time_min":"2026-12-01","time_max":"2026-12-10","query":"standup"}`, "4 events", "Tue 2026-12-01 09:30", "Fri 2026-12-04 09:30")

	g.Call("calendar_create_event", `{"summary":"Team lunch","start":"2026-11-27T12:00:00+01:00","calendar_id":"`+calendarTeam+`"}`,
		"in the calendar "+calendarTeam, "When: Fri 2026-11-27 12:00–13:00 (UTC+01:00)")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-11","calendar_id":"en.french#holiday@group.v.calendar.google.com"}`,
		"HTTP 403", "You need to have writer access to this calendar")
	if g.Last().Path != "/calendar/v3/calendars/en.french#holiday@group.v.calendar.google.com/events" {
		t.Errorf("holiday path: %s", g.Last().Path)
	}

	n := len(g.G.Requests())
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00"}`, "start has no UTC offset", "time_zone")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00Z","end":"2026-11-26T14:00:00Z"}`, "end must be after start")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26","end":"2026-11-26T14:00:00Z"}`, "give end as a date YYYY-MM-DD too")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00Z","attendees":["grace at example"]}`, `attendees: "grace at example" is not an e-mail address`)
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00Z","recurrence":["RRULE:FREQ=WEEKLY"]}`, "A recurring event needs time_zone")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26","recurrence":["every monday"]}`, "is not an iCalendar rule")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00Z","send_updates":"everyone"}`, "send_updates must be all, externalOnly or none")
	g.Fail("calendar_create_event", `{"summary":" ","start":"2026-11-26"}`, "Missing summary")
	if len(g.G.Requests()) != n {
		t.Errorf("bad arguments reached Google")
	}
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26T15:00:00","time_zone":"Mars/Olympus_Mons"}`, "HTTP 400", "Invalid time zone definition for start time.")

	// A new start keeps the length and the event's time zone; only the
	// times are sent.
	g.Call("calendar_update_event", `{"event_id":"`+calendarLunch+`","start":"2026-11-20T13:00:00"}`,
		`Updated the event "Lunch with Grace" (id: `+calendarLunch+`)`, "When: Fri 2026-11-20 13:00–14:00 (Europe/Paris, UTC+01:00)")
	reqs := g.G.Requests()
	if get := reqs[len(reqs)-2]; get.Method != "GET" || get.Path != calendarEventsAt+"/"+calendarLunch {
		t.Errorf("update did not read the event first: %s %s", get.Method, get.Path)
	}
	if r := g.Last(); r.Method != "PATCH" || r.Path != calendarEventsAt+"/"+calendarLunch || r.Query.Get("sendUpdates") != "all" ||
		string(r.Body) != `{"start":{"dateTime":"2026-11-20T13:00:00","timeZone":"Europe/Paris"},"end":{"dateTime":"2026-11-20T14:00:00","timeZone":"Europe/Paris"}}` {
		t.Errorf("move: %s %s %v %s", r.Method, r.Path, r.Query, r.Body)
	}
	n = len(g.G.Requests())
	g.Call("calendar_update_event", `{"event_id":"`+calendarSync+`","summary":"Team sync (moved)","location":""}`, `Updated the event "Team sync (moved)"`)
	if len(g.G.Requests()) != n+1 || string(g.Last().Body) != `{"summary":"Team sync (moved)","location":""}` {
		t.Errorf("a title change sends only the title: %d requests, %s", len(g.G.Requests())-n, g.Last().Body)
	}
	g.Call("calendar_update_event", `{"event_id":"`+calendarDentist+`","end":"2026-11-27T10:15:00+01:00"}`, "When: Fri 2026-11-27 09:00–10:15")
	if calendarJSON(calendarBody(t, g)["start"]) != `{"dateTime":"2026-11-27T09:00:00+01:00","timeZone":"Europe/Paris"}` {
		t.Errorf("a new end keeps the start: %s", g.Last().Body)
	}

	// Attendees are read, changed and sent back whole, their answers kept.
	g.Call("calendar_update_event", `{"event_id":"`+calendarSync+`","add_attendees":["katherine@example.com"],"remove_attendees":["ALAN@example.com"],"send_updates":"externalOnly"}`,
		"Attendees: grace@example.com, margaret@example.com, katherine@example.com")
	if r := g.Last(); r.Query.Get("sendUpdates") != "externalOnly" || calendarJSON(calendarBody(t, g)["attendees"]) !=
		`[{"email":"ada@example.com","responseStatus":"accepted"},{"displayName":"Grace Hopper","email":"grace@example.com","responseStatus":"accepted"},`+
			`{"email":"margaret@example.com","optional":true,"responseStatus":"tentative"},{"email":"katherine@example.com"}]` {
		t.Errorf("attendees: %v %s", r.Query, r.Body)
	}
	out = g.Call("calendar_get_event", `{"event_id":"`+calendarSync+`"}`, "Title: Team sync (moved)", "- katherine@example.com: needsAction", "- margaret@example.com (optional): tentative")
	if strings.Contains(out, "alan@") || strings.Contains(out, "Location:") {
		t.Errorf("after the update:\n%s", out)
	}
	g.Fail("calendar_update_event", `{"event_id":"`+calendarSync+`","remove_attendees":["nobody@example.com"]}`, "Not attendees of this event: nobody@example.com")

	g.Call("calendar_update_event", `{"event_id":"`+calendarLunch+`","add_meet":true}`, "Google Meet: https://meet.google.com/kfp-")
	if r := g.Last(); r.Query.Get("conferenceDataVersion") != "1" || !strings.Contains(string(r.Body), `"conferenceSolutionKey":{"type":"hangoutsMeet"}`) {
		t.Errorf("add Meet: %v %s", r.Query, r.Body)
	}
	n = len(g.G.Requests())
	g.Call("calendar_update_event", `{"event_id":"`+calendarSync+`","add_meet":true}`, "Nothing changed.", "already had a Google Meet link")
	if g.Last().Method != "GET" || len(g.G.Requests()) != n+1 {
		t.Errorf("an event with a Meet link was patched")
	}

	// An occurrence of a series changes alone.
	g.Call("calendar_update_event", `{"event_id":"`+calendarSeries+`_20261123T130000Z","start":"2026-11-23T15:00:00+01:00"}`,
		"When: Mon 2026-11-23 15:00–15:30")
	g.Call("calendar_list_events", `{"time_min":"2026-11-23","time_max":"2026-11-30","query":"1:1"}`, "2 events", "Mon 2026-11-23 15:00–15:30", "Mon 2026-11-30 14:00–14:30")

	g.Fail("calendar_update_event", `{"event_id":"`+calendarLunch+`"}`, "Nothing to change")
	g.Fail("calendar_update_event", `{"event_id":"`+calendarLunch+`","time_zone":"Europe/Paris"}`, "time_zone goes with start or end")
	g.Fail("calendar_update_event", `{"event_id":"nope","summary":"x"}`, "HTTP 404", "No event nope in the calendar primary")

	g.Call("calendar_delete_event", `{"event_id":"`+calendarDentist+`","send_updates":"none"}`,
		"Deleted the event "+calendarDentist+" from the calendar primary (no cancellation sent).")
	if r := g.Last(); r.Method != "DELETE" || r.Path != calendarEventsAt+"/"+calendarDentist || r.Query.Get("sendUpdates") != "none" || len(r.Body) != 0 {
		t.Errorf("delete: %s %s %v", r.Method, r.Path, r.Query)
	}
	g.Call("calendar_delete_event", `{"event_id":"`+calendarDentist+`"}`, "The event "+calendarDentist+" was already deleted.")
	g.Call("calendar_get_event", `{"event_id":"`+calendarDentist+`"}`, "Status: cancelled (deleted)")
	g.Call("calendar_delete_event", `{"event_id":"`+calendarSeries+`_20261130T130000Z"}`, "(cancellations sent: all)")
	out = g.Call("calendar_list_events", `{"time_min":"2026-11-27","time_max":"2026-12-01"}`)
	if strings.Contains(out, "Dentist") || strings.Contains(out, "1:1") {
		t.Errorf("deleted events listed:\n%s", out)
	}
	g.Fail("calendar_delete_event", `{"event_id":"nope"}`, "HTTP 404", "No event nope in the calendar primary: find the event's id with calendar_list_events")

	g.Call("calendar_quick_add", `{"text":"Coffee with Alan on Nov 24 at 3pm"}`,
		`Created the event "Coffee with Alan"`, "When: Tue 2026-11-24 15:00–16:00 (Europe/Paris, UTC+01:00)", "fix them with calendar_update_event")
	if r := g.Last(); r.Method != "POST" || r.Path != calendarEventsAt+"/quickAdd" || r.Query.Get("text") != "Coffee with Alan on Nov 24 at 3pm" || len(r.Body) != 0 {
		t.Errorf("quick add: %s %s %v %s", r.Method, r.Path, r.Query, r.Body)
	}
	g.Fail("calendar_quick_add", `{"text":" "}`, "Missing text")

	// Read-only access lists but cannot change.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/calendar.readonly"))
	g.Call("calendar_list_events", `{"time_min":"2026-11-20","time_max":"2026-11-20"}`, "Lunch with Grace")
	g.Fail("calendar_create_event", `{"summary":"x","start":"2026-11-26"}`, "HTTP 403", "https://www.googleapis.com/auth/calendar,")
	g.Fail("calendar_delete_event", `{"event_id":"`+calendarLunch+`"}`, "HTTP 403", "https://www.googleapis.com/auth/calendar,")
	g.Token(fakegoogle.Token)
}

func TestGoogleCalendarFreeBusy(t *testing.T) {
	g := newGoogle(t)

	g.Call("calendar_free_busy", `{"time_min":"2026-11-20T09:00:00","time_max":"2026-11-20T18:00:00","time_zone":"Europe/Paris",
		"calendars":["primary","grace@example.com","alan@example.com","nobody@example.com"]}`,
		"Free/busy from Fri 2026-11-20 09:00 to 18:00 (times in Europe/Paris):\n"+
			"- primary: busy Fri 2026-11-20 10:00–10:30, 12:30–13:30\n"+
			"- grace@example.com: busy Fri 2026-11-20 12:30–13:30, 15:00–16:00\n"+
			"- alan@example.com: busy Fri 2026-11-20 09:00–11:00\n"+
			"- nobody@example.com: unknown (notFound: no such calendar, or its free/busy is not shared with you)\n"+
			"Free for all of them: Fri 2026-11-20 11:00–12:30, 13:30–15:00, 16:00–18:00")
	r := g.Last()
	if r.Method != "POST" || r.Path != "/calendar/v3/freeBusy" || string(r.Body) != `{"timeMin":"2026-11-19T19:00:00Z","timeMax":"2026-11-21T08:00:00Z",`+
		`"items":[{"id":"primary"},{"id":"grace@example.com"},{"id":"alan@example.com"},{"id":"nobody@example.com"}],"timeZone":"Europe/Paris"}` {
		t.Errorf("free/busy request: %s %s %s", r.Method, r.Path, r.Body)
	}

	// Instants in UTC; an all-day event marked free does not count.
	g.Call("calendar_free_busy", `{"time_min":"2026-11-21T08:00:00Z","time_max":"2026-11-23T17:00:00Z","calendars":["primary","grace@example.com"]}`,
		"Free/busy from Sat 2026-11-21 08:00 to Mon 2026-11-23 17:00 (times in UTC):",
		"- primary: busy Mon 2026-11-23 13:00–13:30",
		"- grace@example.com: busy Mon 2026-11-23 08:00–11:00",
		"Free for all of them: Sat 2026-11-21 08:00–Mon 2026-11-23 08:00, 11:00–13:00, 13:30–17:00")
	if body := calendarBody(t, g); body["timeZone"] != nil || body["timeMin"] != "2026-11-21T08:00:00Z" {
		t.Errorf("UTC request: %s", g.Last().Body)
	}
	// A whole day in a zone; the default calendar is the user's.
	g.Call("calendar_free_busy", `{"time_min":"2026-11-24","time_max":"2026-11-24","time_zone":"Europe/Paris"}`,
		"- primary: busy Tue 2026-11-24 00:00–Wed 2026-11-25 00:00", "Free: no common free time")
	if calendarJSON(calendarBody(t, g)["items"]) != `[{"id":"primary"}]` {
		t.Errorf("default calendars: %s", g.Last().Body)
	}

	g.Fail("calendar_free_busy", `{"time_min":"2026-11-20","time_max":"2026-11-21"}`, "need time_zone")
	g.Fail("calendar_free_busy", `{"time_min":"2026-11-20T09:00:00Z","time_max":""}`, "Missing time_max")
	g.Fail("calendar_free_busy", `{"time_min":"2026-11-20T09:00:00Z","time_max":"2026-11-20T08:00:00Z"}`, "time_max must be after time_min")
}

package fakegoogle

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Google Calendar API v3: https://developers.google.com/workspace/calendar/api/v3/reference
// (calendarList, events and freebusy), served on www.googleapis.com under
// /calendar/v3. Events keep their instants; recurring events are expanded
// from their RRULE (FREQ, INTERVAL, COUNT and UNTIL; BYDAY and the other
// parts are ignored), and a changed or deleted occurrence becomes an
// exception stored beside its series, as Google keeps it.

const (
	scopeCalendar                     = "https://www.googleapis.com/auth/calendar"
	scopeCalendarReadonly             = "https://www.googleapis.com/auth/calendar.readonly"
	scopeCalendarEvents               = "https://www.googleapis.com/auth/calendar.events"
	scopeCalendarEventsReadonly       = "https://www.googleapis.com/auth/calendar.events.readonly"
	scopeCalendarEventsOwned          = "https://www.googleapis.com/auth/calendar.events.owned"
	scopeCalendarEventsOwnedReadonly  = "https://www.googleapis.com/auth/calendar.events.owned.readonly"
	scopeCalendarEventsPublicReadonly = "https://www.googleapis.com/auth/calendar.events.public.readonly"
	scopeCalendarEventsFreebusy       = "https://www.googleapis.com/auth/calendar.events.freebusy"
	scopeCalendarAppCreated           = "https://www.googleapis.com/auth/calendar.app.created"
	scopeCalendarFreebusy             = "https://www.googleapis.com/auth/calendar.freebusy"
	scopeCalendarCalendarlist         = "https://www.googleapis.com/auth/calendar.calendarlist"
	scopeCalendarCalendarlistReadonly = "https://www.googleapis.com/auth/calendar.calendarlist.readonly"
)

// The scopes each method's reference lists.
var (
	calendarListScopes = []string{scopeCalendarReadonly, scopeCalendar, scopeCalendarCalendarlist, scopeCalendarCalendarlistReadonly}
	calendarReadScopes = []string{scopeCalendarReadonly, scopeCalendar, scopeCalendarEventsReadonly, scopeCalendarEvents,
		scopeCalendarAppCreated, scopeCalendarEventsFreebusy, scopeCalendarEventsOwned, scopeCalendarEventsOwnedReadonly,
		scopeCalendarEventsPublicReadonly}
	calendarWriteScopes    = []string{scopeCalendar, scopeCalendarEvents, scopeCalendarAppCreated, scopeCalendarEventsOwned}
	calendarFreeBusyScopes = []string{scopeCalendarReadonly, scopeCalendar, scopeCalendarEventsFreebusy, scopeCalendarFreebusy}
)

// calendarNow is the fake's "now", for created and updated times.
const calendarNow = "2026-11-21T10:00:00.000Z"

// CalendarEntry is a calendar#calendarListEntry resource.
type CalendarEntry struct {
	Kind                 string                       `json:"kind"`
	ETag                 string                       `json:"etag"`
	ID                   string                       `json:"id"`
	Summary              string                       `json:"summary"`
	Description          string                       `json:"description,omitempty"`
	TimeZone             string                       `json:"timeZone"`
	ColorID              string                       `json:"colorId"`
	BackgroundColor      string                       `json:"backgroundColor"`
	ForegroundColor      string                       `json:"foregroundColor"`
	Selected             bool                         `json:"selected,omitempty"`
	AccessRole           string                       `json:"accessRole"`
	DefaultReminders     []calendarReminder           `json:"defaultReminders"`
	ConferenceProperties calendarConferenceProperties `json:"conferenceProperties"`
	Primary              bool                         `json:"primary,omitempty"`
}

type calendarReminder struct {
	Method  string `json:"method"`
	Minutes int    `json:"minutes"`
}

type calendarConferenceProperties struct {
	AllowedConferenceSolutionTypes []string `json:"allowedConferenceSolutionTypes"`
}

// CalendarEvent is a stored event: a single event, a recurring series
// (Recurrence set) or an exception to a series (RecurringEventID set).
type CalendarEvent struct {
	ID, CalendarID string
	Status         string // confirmed, tentative or cancelled
	Summary        string
	Description    string
	Location       string
	// Start and End are a timed event's instants; StartDate and EndDate an
	// all-day event's dates, the end exclusive.
	Start, End         time.Time
	StartDate, EndDate string
	TimeZone           string
	Attendees          []calendarAttendee
	Recurrence         []string
	RecurringEventID   string
	OriginalStart      string // an occurrence's key: 20261123T130000Z or 20261123
	MeetCode           string
	MeetRequestID      string
	Organizer          calendarPerson
	Transparency       string
	Created, Updated   string
	Sequence           int
	version            int
}

func (e *CalendarEvent) allDay() bool { return e.StartDate != "" }

type calendarPerson struct {
	Email       string `json:"email"`
	DisplayName string `json:"displayName,omitempty"`
	Self        bool   `json:"self,omitempty"`
}

type calendarAttendee struct {
	Email          string `json:"email"`
	DisplayName    string `json:"displayName,omitempty"`
	Organizer      bool   `json:"organizer,omitempty"`
	Self           bool   `json:"self,omitempty"`
	Optional       bool   `json:"optional,omitempty"`
	ResponseStatus string `json:"responseStatus"`
}

// calendarPeriod is a busy time of someone whose calendar is not in the
// account's list, for freeBusy.
type calendarPeriod struct{ Start, End time.Time }

// CalendarState is the Calendar service's data.
type CalendarState struct {
	Calendars []*CalendarEntry
	Events    []*CalendarEvent
	// Busy holds other people's busy times by e-mail address.
	Busy map[string][]calendarPeriod
}

// Calendar returns the Calendar service's state.
func (s *Server) Calendar() *CalendarState {
	return State(s, "calendar", func() *CalendarState {
		paris := calendarLoc("Europe/Paris")
		at := func(day, hm string) time.Time {
			t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hm, paris)
			if err != nil {
				panic(err)
			}
			return t
		}
		entry := func(id, summary, role, color string) *CalendarEntry {
			return &CalendarEntry{Kind: "calendar#calendarListEntry", ETag: `"1763720000000000"`, ID: id, Summary: summary,
				TimeZone: "Europe/Paris", ColorID: "14", BackgroundColor: color, ForegroundColor: "#000000", Selected: true,
				AccessRole: role, DefaultReminders: []calendarReminder{},
				ConferenceProperties: calendarConferenceProperties{AllowedConferenceSolutionTypes: []string{"hangoutsMeet"}}}
		}
		st := &CalendarState{Busy: map[string][]calendarPeriod{}}
		primary := entry(Email, Email, "owner", "#9fe1e7")
		primary.Primary = true
		primary.DefaultReminders = []calendarReminder{{"popup", 10}}
		team := entry("c_8f2a1b3c4d5e6f7a9b0c@group.calendar.google.com", "Team Events", "writer", "#f83a22")
		team.Description = "Shared calendar of the engineering team"
		holidays := entry("en.french#holiday@group.v.calendar.google.com", "Holidays in France", "reader", "#16a765")
		holidays.ConferenceProperties.AllowedConferenceSolutionTypes = []string{}
		st.Calendars = []*CalendarEntry{primary, team, holidays}

		me := calendarPerson{Email: Email, Self: true}
		ev := func(id, cal, summary string, start, end time.Time) *CalendarEvent {
			return &CalendarEvent{ID: id, CalendarID: cal, Status: "confirmed", Summary: summary, Start: start, End: end,
				TimeZone: "Europe/Paris", Organizer: me, Created: "2026-11-02T08:15:00.000Z", Updated: "2026-11-18T16:40:12.000Z"}
		}
		sync := ev("4k2p9s7q1m3n5b8c0d6e", Email, "Team sync", at("2026-11-20", "10:00"), at("2026-11-20", "10:30"))
		sync.Location = "Room 4, Paris office"
		sync.Description = "Weekly status round: blockers first, then demos."
		sync.MeetCode = "ghi-jklm-nop"
		sync.Attendees = []calendarAttendee{
			{Email: Email, Organizer: true, Self: true, ResponseStatus: "accepted"},
			{Email: "grace@example.com", DisplayName: "Grace Hopper", ResponseStatus: "accepted"},
			{Email: "alan@example.com", DisplayName: "Alan Turing", ResponseStatus: "needsAction"},
			{Email: "margaret@example.com", Optional: true, ResponseStatus: "tentative"},
		}
		lunch := ev("7f3h5j9l2n4p6r8t0v1b", Email, "Lunch with Grace", at("2026-11-20", "12:30"), at("2026-11-20", "13:30"))
		lunch.Location = "Café Procope, 13 Rue de l'Ancienne Comédie, Paris"
		lunch.Attendees = []calendarAttendee{
			{Email: Email, Organizer: true, Self: true, ResponseStatus: "accepted"},
			{Email: "grace@example.com", DisplayName: "Grace Hopper", ResponseStatus: "tentative"},
		}
		birthday := &CalendarEvent{ID: "0a9s8d7f6g5h4j3k2l1m", CalendarID: Email, Status: "confirmed", Summary: "Marie's birthday",
			StartDate: "2026-11-21", EndDate: "2026-11-22", Organizer: me, Transparency: "transparent",
			Created: "2026-01-10T19:00:00.000Z", Updated: "2026-01-10T19:00:00.000Z"}
		offsite := &CalendarEvent{ID: "5c7e9g1i3k5m7o9q1s3u", CalendarID: Email, Status: "confirmed", Summary: "Offsite in Lyon",
			Location: "Lyon", StartDate: "2026-11-24", EndDate: "2026-11-26", Organizer: me,
			Created: "2026-10-01T09:00:00.000Z", Updated: "2026-10-01T09:00:00.000Z"}
		oneOnOne := ev("2b4d6f8h0j1l3n5p7r9t", Email, "1:1 with Alan", at("2026-11-02", "14:00"), at("2026-11-02", "14:30"))
		oneOnOne.Recurrence = []string{"RRULE:FREQ=WEEKLY;COUNT=8;BYDAY=MO"}
		oneOnOne.Attendees = []calendarAttendee{
			{Email: Email, Organizer: true, Self: true, ResponseStatus: "accepted"},
			{Email: "alan@example.com", DisplayName: "Alan Turing", ResponseStatus: "accepted"},
		}
		dentist := ev("9e8d7c6b5a4v3u2t1s0r", Email, "Dentist", at("2026-11-27", "09:00"), at("2026-11-27", "09:45"))
		dentist.Description = "Dr. Martin. Bring the X-rays."
		planning := ev("3m5o7q9s1u3a5c7e9g1i", team.ID, "Quarterly planning", at("2026-11-25", "14:00"), at("2026-11-25", "16:00"))
		planning.Organizer = calendarPerson{Email: team.ID, DisplayName: "Team Events"}
		planning.MeetCode = "qrs-tuvw-xyz"
		armistice := &CalendarEvent{ID: "20261111_60o30dr46oo30c1g60o30dr4ck", CalendarID: holidays.ID, Status: "confirmed",
			Summary: "Armistice Day", StartDate: "2026-11-11", EndDate: "2026-11-12", Transparency: "transparent",
			Organizer: calendarPerson{Email: holidays.ID, DisplayName: "Holidays in France"},
			Created:   "2025-06-01T00:00:00.000Z", Updated: "2025-06-01T00:00:00.000Z"}
		st.Events = []*CalendarEvent{sync, lunch, birthday, offsite, oneOnOne, dentist, planning, armistice}

		st.Busy["grace@example.com"] = []calendarPeriod{
			{at("2026-11-20", "12:30"), at("2026-11-20", "13:30")},
			{at("2026-11-20", "15:00"), at("2026-11-20", "16:00")},
			{at("2026-11-23", "09:00"), at("2026-11-23", "12:00")},
		}
		st.Busy["alan@example.com"] = []calendarPeriod{
			{at("2026-11-20", "09:00"), at("2026-11-20", "11:00")},
			{at("2026-11-23", "14:00"), at("2026-11-23", "14:30")},
		}
		return st
	})
}

func calendarLoc(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// calendar finds a calendar of the list by id; "primary" is the user's.
func (st *CalendarState) calendar(id string) *CalendarEntry {
	return first(st.Calendars, func(cal *CalendarEntry) bool { return cal.ID == id || id == "primary" && cal.Primary })
}

// span is an occurrence's interval; all-day dates are midnights in the
// calendar's zone.
func (e *CalendarEvent) span(calLoc *time.Location) (time.Time, time.Time) {
	if !e.allDay() {
		return e.Start, e.End
	}
	s, _ := time.ParseInLocation("2006-01-02", e.StartDate, calLoc)
	t, _ := time.ParseInLocation("2006-01-02", e.EndDate, calLoc)
	return s, t
}

var calendarRuleLine = regexp.MustCompile(`^(RRULE|EXRULE|RDATE|EXDATE)(;[^:]*)?:.+$`)

// calendarRule reads a series' RRULE: its frequency unit in (years, months,
// days), its count (0 for none) and until (zero for none).
func calendarRule(lines []string) (step [3]int, count int, until time.Time, ok bool) {
	for _, line := range lines {
		rule, found := strings.CutPrefix(line, "RRULE:")
		if !found {
			continue
		}
		interval := 1
		for _, part := range strings.Split(rule, ";") {
			k, v, _ := strings.Cut(part, "=")
			switch k {
			case "FREQ":
				switch v {
				case "DAILY":
					step = [3]int{0, 0, 1}
				case "WEEKLY":
					step = [3]int{0, 0, 7}
				case "MONTHLY":
					step = [3]int{0, 1, 0}
				case "YEARLY":
					step = [3]int{1, 0, 0}
				default:
					return step, 0, until, false
				}
			case "INTERVAL":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return step, 0, until, false
				}
				interval = n
			case "COUNT":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return step, 0, until, false
				}
				count = n
			case "UNTIL":
				var err error
				if until, err = time.Parse("20060102T150405Z", v); err != nil {
					if until, err = time.Parse("20060102", v); err != nil {
						return step, 0, until, false
					}
					until = until.Add(24*time.Hour - time.Second)
				}
			}
		}
		if step == [3]int{} {
			return step, 0, until, false
		}
		for i := range step {
			step[i] *= interval
		}
		return step, count, until, true
	}
	return step, 0, until, false
}

// occurrences expands a series into its instances starting before limit,
// leaving out those an exception replaces.
func (st *CalendarState) occurrences(master *CalendarEvent, calLoc *time.Location, limit time.Time) []*CalendarEvent {
	step, count, until, ok := calendarRule(master.Recurrence)
	if !ok {
		return nil
	}
	zone := calLoc
	if master.TimeZone != "" {
		zone = calendarLoc(master.TimeZone)
	}
	var out []*CalendarEvent
	for i := 0; i < 1000 && (count == 0 || i < count); i++ {
		inst := *master
		inst.Recurrence = nil
		inst.RecurringEventID = master.ID
		if master.allDay() {
			s, _ := time.Parse("2006-01-02", master.StartDate)
			e, _ := time.Parse("2006-01-02", master.EndDate)
			days := int(e.Sub(s).Hours() / 24)
			s = s.AddDate(i*step[0], i*step[1], i*step[2])
			inst.StartDate, inst.EndDate = s.Format("2006-01-02"), s.AddDate(0, 0, days).Format("2006-01-02")
			inst.OriginalStart = s.Format("20060102")
		} else {
			length := master.End.Sub(master.Start)
			inst.Start = master.Start.In(zone).AddDate(i*step[0], i*step[1], i*step[2])
			inst.End = inst.Start.Add(length)
			inst.OriginalStart = inst.Start.UTC().Format("20060102T150405Z")
		}
		start, _ := inst.span(calLoc)
		if !until.IsZero() && start.After(until) || !start.Before(limit) {
			break
		}
		inst.ID = master.ID + "_" + inst.OriginalStart
		if slices.ContainsFunc(st.Events, func(e *CalendarEvent) bool { return e.ID == inst.ID }) {
			continue
		}
		out = append(out, &inst)
	}
	return out
}

// find returns a calendar's event by id: a stored one, or an occurrence of
// a stored series (not stored until it is changed).
func (st *CalendarState) find(cal *CalendarEntry, id string) (ev *CalendarEvent, stored bool) {
	for _, e := range st.Events {
		if e.CalendarID == cal.ID && e.ID == id {
			return e, true
		}
	}
	base, key, ok := strings.Cut(id, "_")
	if !ok {
		return nil, false
	}
	for _, e := range st.Events {
		if e.CalendarID == cal.ID && e.ID == base && len(e.Recurrence) > 0 {
			loc := calendarLoc(cal.TimeZone)
			for _, inst := range st.occurrences(e, loc, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)) {
				if inst.OriginalStart == key {
					return inst, false
				}
			}
		}
	}
	return nil, false
}

// calendarTime is an EventDateTime.
type calendarTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

type calendarConferenceData struct {
	CreateRequest      *calendarCreateRequest `json:"createRequest,omitempty"`
	EntryPoints        []calendarEntryPoint   `json:"entryPoints"`
	ConferenceSolution calendarSolution       `json:"conferenceSolution"`
	ConferenceID       string                 `json:"conferenceId"`
}

type calendarCreateRequest struct {
	RequestID             string            `json:"requestId"`
	ConferenceSolutionKey calendarKey       `json:"conferenceSolutionKey"`
	Status                map[string]string `json:"status"`
}

type calendarKey struct {
	Type string `json:"type"`
}

type calendarEntryPoint struct {
	EntryPointType string `json:"entryPointType"`
	URI            string `json:"uri"`
	Label          string `json:"label,omitempty"`
	RegionCode     string `json:"regionCode,omitempty"`
	Pin            string `json:"pin,omitempty"`
}

type calendarSolution struct {
	Key     calendarKey `json:"key"`
	Name    string      `json:"name"`
	IconURI string      `json:"iconUri"`
}

// calendarEventJSON is a calendar#event resource as Google answers it.
type calendarEventJSON struct {
	Kind              string                  `json:"kind"`
	ETag              string                  `json:"etag"`
	ID                string                  `json:"id"`
	Status            string                  `json:"status"`
	HTMLLink          string                  `json:"htmlLink"`
	Created           string                  `json:"created"`
	Updated           string                  `json:"updated"`
	Summary           string                  `json:"summary,omitempty"`
	Description       string                  `json:"description,omitempty"`
	Location          string                  `json:"location,omitempty"`
	Creator           calendarPerson          `json:"creator"`
	Organizer         calendarPerson          `json:"organizer"`
	Start             calendarTime            `json:"start"`
	End               calendarTime            `json:"end"`
	Recurrence        []string                `json:"recurrence,omitempty"`
	RecurringEventID  string                  `json:"recurringEventId,omitempty"`
	OriginalStartTime *calendarTime           `json:"originalStartTime,omitempty"`
	Transparency      string                  `json:"transparency,omitempty"`
	ICalUID           string                  `json:"iCalUID"`
	Sequence          int                     `json:"sequence"`
	Attendees         []calendarAttendee      `json:"attendees,omitempty"`
	AttendeesOmitted  bool                    `json:"attendeesOmitted,omitempty"`
	HangoutLink       string                  `json:"hangoutLink,omitempty"`
	ConferenceData    *calendarConferenceData `json:"conferenceData,omitempty"`
	Reminders         map[string]bool         `json:"reminders"`
	EventType         string                  `json:"eventType"`
}

// render shows an event in a zone, with at most maxAttendees attendees (0
// for all).
func (e *CalendarEvent) render(loc *time.Location, maxAttendees int) calendarEventJSON {
	at := func(t time.Time) string { return t.In(loc).Format(time.RFC3339) }
	out := calendarEventJSON{
		Kind: "calendar#event", ETag: fmt.Sprintf(`"3518%09d"`, 123456+e.version), ID: e.ID, Status: e.Status,
		HTMLLink: "https://www.google.com/calendar/event?eid=" + base64.RawURLEncoding.EncodeToString([]byte(e.ID+" "+e.CalendarID)),
		Created:  e.Created, Updated: e.Updated, Summary: e.Summary, Description: e.Description, Location: e.Location,
		Creator: calendarPerson{Email: Email, Self: true}, Organizer: e.Organizer, Recurrence: e.Recurrence,
		RecurringEventID: e.RecurringEventID, Transparency: e.Transparency, Sequence: e.Sequence,
		Attendees: e.Attendees, Reminders: map[string]bool{"useDefault": true}, EventType: "default",
	}
	out.ICalUID = e.ID + "@google.com"
	if e.RecurringEventID != "" {
		out.ICalUID = e.RecurringEventID + "@google.com"
	}
	if e.allDay() {
		out.Start, out.End = calendarTime{Date: e.StartDate}, calendarTime{Date: e.EndDate}
	} else {
		out.Start = calendarTime{DateTime: at(e.Start), TimeZone: e.TimeZone}
		out.End = calendarTime{DateTime: at(e.End), TimeZone: e.TimeZone}
	}
	if e.RecurringEventID != "" {
		if orig, err := time.Parse("20060102T150405Z", e.OriginalStart); err == nil {
			out.OriginalStartTime = &calendarTime{DateTime: at(orig), TimeZone: e.TimeZone}
		} else if orig, err := time.Parse("20060102", e.OriginalStart); err == nil {
			out.OriginalStartTime = &calendarTime{Date: orig.Format("2006-01-02")}
		}
	}
	if maxAttendees > 0 && len(e.Attendees) > maxAttendees {
		out.Attendees, out.AttendeesOmitted = nil, true
		for _, a := range e.Attendees {
			if a.Self {
				out.Attendees = append(out.Attendees, a)
			}
		}
	}
	if e.MeetCode != "" {
		link := "https://meet.google.com/" + e.MeetCode
		out.HangoutLink = link
		out.ConferenceData = &calendarConferenceData{
			EntryPoints: []calendarEntryPoint{
				{EntryPointType: "video", URI: link, Label: "meet.google.com/" + e.MeetCode},
				{EntryPointType: "phone", URI: "tel:+33-1-87-40-42-61", Label: "+33 1 87 40 42 61", RegionCode: "FR", Pin: "512794638"},
			},
			ConferenceSolution: calendarSolution{Key: calendarKey{"hangoutsMeet"}, Name: "Google Meet",
				IconURI: "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/logo_meet_2020q4_color_2x_web_512dp.png"},
			ConferenceID: e.MeetCode,
		}
		if e.MeetRequestID != "" {
			out.ConferenceData.CreateRequest = &calendarCreateRequest{RequestID: e.MeetRequestID,
				ConferenceSolutionKey: calendarKey{"hangoutsMeet"}, Status: map[string]string{"statusCode": "success"}}
		}
	}
	return out
}

// calendarEventInput is the part of an event the tools write; the decoder
// refuses anything else.
type calendarEventInput struct {
	Summary        *string                  `json:"summary"`
	Description    *string                  `json:"description"`
	Location       *string                  `json:"location"`
	Start          *calendarTime            `json:"start"`
	End            *calendarTime            `json:"end"`
	Attendees      *[]calendarAttendeeInput `json:"attendees"`
	Recurrence     *[]string                `json:"recurrence"`
	ConferenceData *struct {
		CreateRequest *struct {
			RequestID             string      `json:"requestId"`
			ConferenceSolutionKey calendarKey `json:"conferenceSolutionKey"`
		} `json:"createRequest"`
	} `json:"conferenceData"`
}

type calendarAttendeeInput struct {
	Email          string `json:"email"`
	DisplayName    string `json:"displayName"`
	Optional       bool   `json:"optional"`
	ResponseStatus string `json:"responseStatus"`
}

// calendarWhen reads an EventDateTime: an all-day date, or an instant
// (with an offset, or a local time in its timeZone). The message is
// Google's answer to a bad value; bad is a malformed one.
func calendarWhen(t calendarTime, which string) (at time.Time, date, msg string, bad bool) {
	if t.TimeZone != "" {
		if _, err := time.LoadLocation(t.TimeZone); err != nil || t.TimeZone == "Local" {
			return at, "", "Invalid time zone definition for " + which + " time.", false
		}
	}
	switch {
	case t.Date != "" && t.DateTime != "":
		return at, "", which + " has both date and dateTime", true
	case t.Date != "":
		if _, err := time.Parse("2006-01-02", t.Date); err != nil {
			return at, "", which + ".date " + t.Date + " is not YYYY-MM-DD", true
		}
		return at, t.Date, "", false
	case t.DateTime != "":
		if v, err := time.Parse(time.RFC3339, t.DateTime); err == nil {
			return v, "", "", false
		}
		v, err := time.Parse("2006-01-02T15:04:05", t.DateTime)
		if err != nil {
			return at, "", which + ".dateTime " + t.DateTime + " is not RFC 3339", true
		}
		if t.TimeZone == "" {
			return at, "", "Missing time zone definition for " + which + " time.", false
		}
		v, _ = time.ParseInLocation("2006-01-02T15:04:05", t.DateTime, calendarLoc(t.TimeZone))
		return v, "", "", false
	}
	return at, "", which + " has neither date nor dateTime", true
}

// apply writes an insert's or a patch's fields into e.
func (st *CalendarState) apply(c *Call, e *CalendarEvent, in calendarEventInput, conferenceVersion bool) bool {
	if in.Summary != nil {
		e.Summary = *in.Summary
	}
	if in.Description != nil {
		e.Description = *in.Description
	}
	if in.Location != nil {
		e.Location = *in.Location
	}
	if in.Start != nil || in.End != nil {
		next := *e
		for _, side := range []struct {
			t     *calendarTime
			which string
		}{{in.Start, "start"}, {in.End, "end"}} {
			if side.t == nil {
				continue
			}
			at, date, msg, bad := calendarWhen(*side.t, side.which)
			if bad {
				return c.Bad("%s", msg)
			}
			if msg != "" {
				c.Invalid(msg)
				return false
			}
			if side.which == "start" {
				next.Start, next.StartDate = at, date
				if side.t.TimeZone != "" || date != "" {
					next.TimeZone = side.t.TimeZone
				}
			} else {
				next.End, next.EndDate = at, date
			}
		}
		if (next.StartDate == "") != (next.EndDate == "") {
			return c.Bad("start and end must both be dates or both be date-times")
		}
		s, t := next.span(time.UTC)
		if !t.After(s) {
			c.Invalid("The specified time range is empty.")
			return false
		}
		e.Start, e.End, e.StartDate, e.EndDate, e.TimeZone = next.Start, next.End, next.StartDate, next.EndDate, next.TimeZone
	}
	if in.Attendees != nil {
		var list []calendarAttendee
		for _, a := range *in.Attendees {
			if !strings.Contains(a.Email, "@") {
				c.Invalid("Invalid attendee email.")
				return false
			}
			if a.ResponseStatus != "" && !slices.Contains([]string{"needsAction", "declined", "tentative", "accepted"}, a.ResponseStatus) {
				return c.Bad("attendee responseStatus %q is not needsAction, declined, tentative or accepted", a.ResponseStatus)
			}
			next := calendarAttendee{Email: a.Email, DisplayName: a.DisplayName, Optional: a.Optional, ResponseStatus: "needsAction"}
			for _, old := range e.Attendees {
				if strings.EqualFold(old.Email, a.Email) {
					next.ResponseStatus = old.ResponseStatus
					if next.DisplayName == "" {
						next.DisplayName = old.DisplayName
					}
				}
			}
			if strings.EqualFold(a.Email, Email) {
				next.Organizer, next.Self, next.ResponseStatus = e.Organizer.Email == Email, true, "accepted"
			}
			list = append(list, next)
		}
		e.Attendees = list
	}
	if in.Recurrence != nil {
		for _, line := range *in.Recurrence {
			if !calendarRuleLine.MatchString(line) {
				c.Invalid("Invalid recurrence rule.")
				return false
			}
		}
		if _, _, _, ok := calendarRule(*in.Recurrence); len(*in.Recurrence) > 0 && !ok {
			c.Invalid("Invalid recurrence rule.")
			return false
		}
		e.Recurrence = *in.Recurrence
	}
	if len(e.Recurrence) > 0 && !e.allDay() && e.TimeZone == "" {
		c.Invalid("Missing time zone definition for start time.")
		return false
	}
	if in.ConferenceData != nil {
		if !conferenceVersion {
			return c.Bad("conferenceData sent without conferenceDataVersion=1: Google ignores it and makes no Meet link")
		}
		req := in.ConferenceData.CreateRequest
		if req == nil || req.RequestID == "" {
			return c.Bad("conferenceData without a createRequest and its requestId")
		}
		if req.ConferenceSolutionKey.Type != "hangoutsMeet" {
			c.Invalid("Invalid conference type value.")
			return false
		}
		if e.MeetRequestID != req.RequestID {
			const letters = "abcdefghijklmnopqrstuvwxyz"
			code := []byte(calendarLast4(c.S.NewID("")))
			for i, ch := range code {
				code[i] = letters[(int(ch-'0')*7+i*3)%26]
			}
			e.MeetCode, e.MeetRequestID = "kfp-"+string(code)+"-wcz", req.RequestID
		}
	}
	e.Updated = calendarNow
	e.Sequence++
	e.version++
	return true
}

// calendarLast4 keeps the last four characters of a NewID.
func calendarLast4(id string) string { return id[len(id)-4:] }

// pathCalendar finds the calendar the path names, answering 404 itself;
// to write, the user must hold the calendar's writer or owner role (403).
func (st *CalendarState) pathCalendar(c *Call, write bool) *CalendarEntry {
	cal := st.calendar(c.Path("cal"))
	if cal == nil {
		c.NotFound()
		return nil
	}
	if write && !calendarWritable(c, cal) {
		return nil
	}
	return cal
}

// pathEvent finds the calendar and the event the path names, answering 404
// (and to write, 403) itself; stored is false for an occurrence of a series
// with no exception stored.
func (st *CalendarState) pathEvent(c *Call, write bool) (cal *CalendarEntry, e *CalendarEvent, stored bool) {
	if cal = st.pathCalendar(c, false); cal == nil {
		return nil, nil, false
	}
	if e, stored = st.find(cal, c.Path("event")); e == nil {
		c.NotFound()
		return nil, nil, false
	}
	if write && !calendarWritable(c, cal) {
		return nil, nil, false
	}
	return cal, e, stored
}

// calendarWritable answers 403 for a calendar the user may only read.
func calendarWritable(c *Call, cal *CalendarEntry) bool {
	if cal.AccessRole == "owner" || cal.AccessRole == "writer" {
		return true
	}
	writeError(c.W, http.StatusForbidden, "PERMISSION_DENIED", "You need to have writer access to this calendar.", "requiredAccessLevel")
	return false
}

// calendarSendUpdates checks the sendUpdates parameter.
func calendarSendUpdates(c *Call) bool {
	if v, ok := c.Query["sendUpdates"]; ok && !slices.Contains([]string{"all", "externalOnly", "none"}, v[0]) {
		return c.Bad("sendUpdates %q is not all, externalOnly or none", v[0])
	}
	return true
}

// calendarZone is the zone a response shows times in: the timeZone
// parameter's, or the calendar's.
func calendarZone(c *Call, cal *CalendarEntry) (*time.Location, bool) {
	name := cal.TimeZone
	if v := c.Query.Get("timeZone"); v != "" {
		name = v
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		c.Invalid("Invalid time zone definition: " + name)
		return nil, false
	}
	return loc, true
}

// calendarGone answers 410 as Calendar does for an event already deleted.
func calendarGone(c *Call) {
	c.W.Header().Set("Content-Type", "application/json; charset=UTF-8")
	c.W.WriteHeader(http.StatusGone)
	json.NewEncoder(c.W).Encode(map[string]any{"error": map[string]any{
		"code": http.StatusGone, "message": "Resource has been deleted",
		"errors": []map[string]string{{"domain": "global", "reason": "deleted", "message": "Resource has been deleted"}},
	}})
}

// calendarFieldNames are the field names of the Events list and the Event
// resource, for the fields parameter.
var calendarFieldNames = flatNames(`kind etag summary description updated timeZone accessRole defaultReminders
	nextPageToken nextSyncToken items method minutes id status htmlLink created location colorId creator organizer
	email displayName self start end date dateTime endTimeUnspecified recurrence recurringEventId originalStartTime
	transparency visibility iCalUID sequence attendees optional resource responseStatus comment additionalGuests
	attendeesOmitted extendedProperties private shared hangoutLink conferenceData createRequest requestId
	conferenceSolutionKey type entryPoints entryPointType uri label pin accessCode meetingCode passcode password
	regionCode conferenceSolution key name iconUri conferenceId signature notes parameters addOnParameters gadget
	anyoneCanAddSelf guestsCanInviteOthers guestsCanModify guestsCanSeeOtherGuests privateCopy locked reminders
	useDefault overrides source url title attachments fileUrl mimeType iconLink fileId eventType
	workingLocationProperties outOfOfficeProperties focusTimeProperties birthdayProperties`)

// calendarInstant reads an RFC 3339 timestamp with its offset, as list
// and freeBusy take them.
func calendarInstant(c *Call, name, v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return t, c.Bad("%s %q is not an RFC 3339 timestamp with a time zone offset", name, v)
	}
	return t, true
}

// calendarMatches reports whether q is in an event's text fields.
func calendarMatches(e *CalendarEvent, q string) bool {
	q = strings.ToLower(q)
	texts := []string{e.Summary, e.Description, e.Location, e.Organizer.Email}
	for _, a := range e.Attendees {
		texts = append(texts, a.Email, a.DisplayName)
	}
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), q) {
			return true
		}
	}
	return false
}

// singles lists a calendar's events with series expanded, before limit.
func (st *CalendarState) singles(cal *CalendarEntry, loc *time.Location, limit time.Time) []*CalendarEvent {
	var out []*CalendarEvent
	for _, e := range st.Events {
		if e.CalendarID != cal.ID {
			continue
		}
		if len(e.Recurrence) > 0 {
			if e.Status != "cancelled" {
				out = append(out, st.occurrences(e, loc, limit)...)
			}
			continue
		}
		out = append(out, e)
	}
	return out
}

// busy lists a calendar's busy periods: its opaque, not cancelled events
// the user has not declined.
func (st *CalendarState) busy(cal *CalendarEntry, limit time.Time) []calendarPeriod {
	loc := calendarLoc(cal.TimeZone)
	var out []calendarPeriod
	for _, e := range st.singles(cal, loc, limit) {
		declined := slices.ContainsFunc(e.Attendees, func(a calendarAttendee) bool { return a.Self && a.ResponseStatus == "declined" })
		if e.Status == "cancelled" || e.Transparency == "transparent" || declined {
			continue
		}
		s, t := e.span(loc)
		out = append(out, calendarPeriod{s, t})
	}
	return out
}

// calendarClip merges periods and keeps what falls in [from, to).
func calendarClip(periods []calendarPeriod, from, to time.Time) []calendarPeriod {
	periods = slices.Clone(periods)
	slices.SortFunc(periods, func(a, b calendarPeriod) int { return a.Start.Compare(b.Start) })
	var out []calendarPeriod
	for _, p := range periods {
		if p.Start.Before(from) {
			p.Start = from
		}
		if p.End.After(to) {
			p.End = to
		}
		if !p.End.After(p.Start) {
			continue
		}
		if n := len(out); n > 0 && !p.Start.After(out[n-1].End) {
			if p.End.After(out[n-1].End) {
				out[n-1].End = p.End
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

var calendarQuickDate = regexp.MustCompile(`(?i)\s*(?:on\s+)?\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:\s+at\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?)?`)

// quickAdd reads a text as Google's quick add does, in a small way: "Title
// on Nov 24 at 3pm" is a one-hour event, "Title Nov 24" an all-day one,
// a text without a date an all-day event today (2026-11-20).
func (st *CalendarState) quickAdd(cal *CalendarEntry, text string) *CalendarEvent {
	loc := calendarLoc(cal.TimeZone)
	e := &CalendarEvent{CalendarID: cal.ID, Status: "confirmed", Summary: strings.TrimSpace(text), StartDate: "2026-11-20", EndDate: "2026-11-21",
		Organizer: calendarPerson{Email: Email, Self: true}, Created: calendarNow, Updated: calendarNow}
	m := calendarQuickDate.FindStringSubmatchIndex(text)
	if m == nil {
		return e
	}
	part := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return text[m[2*i]:m[2*i+1]]
	}
	month, _ := time.Parse("Jan", strings.ToUpper(part(1)[:1])+strings.ToLower(part(1)[1:3]))
	day, _ := strconv.Atoi(part(2))
	e.Summary = strings.TrimSpace(text[:m[0]] + text[m[1]:])
	date := time.Date(2026, month.Month(), day, 0, 0, 0, 0, loc)
	if part(3) == "" {
		e.StartDate, e.EndDate = date.Format("2006-01-02"), date.AddDate(0, 0, 1).Format("2006-01-02")
		return e
	}
	hour, _ := strconv.Atoi(part(3))
	minute, _ := strconv.Atoi(part(4))
	if strings.EqualFold(part(5), "pm") && hour < 12 {
		hour += 12
	}
	e.StartDate, e.EndDate = "", ""
	e.Start = time.Date(2026, month.Month(), day, hour, minute, 0, 0, loc)
	e.End = e.Start.Add(time.Hour)
	e.TimeZone = cal.TimeZone
	return e
}

func init() {
	register("www.googleapis.com", func(s *Server, r *Router) {
		st := s.Calendar()
		r.Handle("GET /calendar/v3/users/me/calendarList", calendarListScopes, func(c *Call) {
			if !c.Params(nil, "maxResults", "minAccessRole", "pageToken", "showDeleted", "showHidden", "syncToken") {
				return
			}
			roles := []string{"freeBusyReader", "reader", "writer", "owner"}
			min := 0
			if v := c.Query.Get("minAccessRole"); v != "" {
				if min = slices.Index(roles, v); min < 0 {
					c.Bad("minAccessRole %q is not freeBusyReader, reader, writer or owner", v)
					return
				}
			}
			items := []*CalendarEntry{}
			for _, cal := range st.Calendars {
				if slices.Index(roles, cal.AccessRole) >= min {
					items = append(items, cal)
				}
			}
			c.JSON(map[string]any{"kind": "calendar#calendarList", "etag": `"p32g9nb8ukfsvo0o"`,
				"nextSyncToken": "CIDd6Zbu_5ADEhBhZGFAZXhhbXBsZS5jb20=", "items": items})
		})

		r.Handle("GET /calendar/v3/calendars/{cal}/events", calendarReadScopes, func(c *Call) {
			if !c.Params(nil, "timeMin", "timeMax", "singleEvents", "orderBy", "q", "maxResults", "pageToken", "timeZone",
				"showDeleted", "maxAttendees", "fields", "iCalUID", "updatedMin", "eventTypes", "showHiddenInvitations",
				"alwaysIncludeEmail", "privateExtendedProperty", "sharedExtendedProperty", "syncToken") {
				return
			}
			cal := st.pathCalendar(c, false)
			if cal == nil {
				return
			}
			loc, ok := calendarZone(c, cal)
			if !ok {
				return
			}
			from, to := time.Time{}, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
			if v := c.Query.Get("timeMin"); v != "" {
				if from, ok = calendarInstant(c, "timeMin", v); !ok {
					return
				}
			}
			if v := c.Query.Get("timeMax"); v != "" {
				if to, ok = calendarInstant(c, "timeMax", v); !ok {
					return
				}
			}
			if !from.Before(to) {
				c.Bad("timeMin %s is not before timeMax %s", c.Query.Get("timeMin"), c.Query.Get("timeMax"))
				return
			}
			single := c.Query.Get("singleEvents")
			if single != "" && single != "true" && single != "false" {
				c.Bad("singleEvents %q is not true or false", single)
				return
			}
			order := c.Query.Get("orderBy")
			switch {
			case order == "startTime" && single != "true":
				c.Bad("orderBy=startTime needs singleEvents=true: Google answers \"The requested ordering is not available for the particular query.\"")
				return
			case order != "" && order != "startTime" && order != "updated":
				c.Bad("orderBy %q is not startTime or updated", order)
				return
			}
			max, maxAttendees := 250, 0
			for name, p := range map[string]*int{"maxResults": &max, "maxAttendees": &maxAttendees} {
				if v := c.Query.Get(name); v != "" {
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 || name == "maxResults" && n > 2500 {
						c.Bad("%s %q is out of range", name, v)
						return
					}
					*p = n
				}
			}
			var list []*CalendarEvent
			if single == "true" {
				list = st.singles(cal, loc, to)
			} else {
				for _, e := range st.Events {
					if e.CalendarID == cal.ID {
						list = append(list, e)
					}
				}
			}
			showDeleted := c.Query.Get("showDeleted") == "true"
			q := c.Query.Get("q")
			var items []*CalendarEvent
			for _, e := range list {
				s, t := e.span(loc)
				if len(e.Recurrence) > 0 {
					t = to // a series spans its occurrences
				}
				if e.Status == "cancelled" && !showDeleted || !t.After(from) || !s.Before(to) || q != "" && !calendarMatches(e, q) {
					continue
				}
				items = append(items, e)
			}
			switch order {
			case "startTime":
				slices.SortStableFunc(items, func(a, b *CalendarEvent) int {
					as, _ := a.span(loc)
					bs, _ := b.span(loc)
					return as.Compare(bs)
				})
			case "updated":
				slices.SortStableFunc(items, func(a, b *CalendarEvent) int { return strings.Compare(a.Updated, b.Updated) })
			}
			offset := 0
			if tok := c.Query.Get("pageToken"); tok != "" {
				raw, err := base64.RawURLEncoding.DecodeString(tok)
				n, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
				if err != nil || err2 != nil || n < 0 || n > len(items) {
					c.Bad("pageToken %q is not one this list gave", tok)
					return
				}
				offset = n
			}
			items = items[offset:]
			out := map[string]any{"kind": "calendar#events", "etag": `"p33c9hk8lprdou0o"`, "summary": cal.Summary,
				"description": cal.Description, "updated": "2026-11-18T16:40:12.000Z", "timeZone": cal.TimeZone,
				"accessRole": cal.AccessRole, "defaultReminders": cal.DefaultReminders}
			if len(items) > max {
				items = items[:max]
				out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset+max)))
			} else {
				out["nextSyncToken"] = "CPDAlvWDx70CEPDAlvWDx70CGAU="
			}
			rendered := []calendarEventJSON{}
			for _, e := range items {
				rendered = append(rendered, e.render(loc, maxAttendees))
			}
			out["items"] = rendered
			c.Partial(out, calendarFieldNames)
		})

		r.Handle("GET /calendar/v3/calendars/{cal}/events/{event}", calendarReadScopes, func(c *Call) {
			if !c.Params(nil, "timeZone", "maxAttendees", "alwaysIncludeEmail") {
				return
			}
			cal, e, _ := st.pathEvent(c, false)
			if e == nil {
				return
			}
			loc, ok := calendarZone(c, cal)
			if !ok {
				return
			}
			max := 0
			if v := c.Query.Get("maxAttendees"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					c.Bad("maxAttendees %q is not a positive number", v)
					return
				}
				max = n
			}
			c.JSON(e.render(loc, max))
		})

		r.Handle("POST /calendar/v3/calendars/{cal}/events", calendarWriteScopes, func(c *Call) {
			var in calendarEventInput
			if !c.Params(nil, "conferenceDataVersion", "sendUpdates", "maxAttendees", "supportsAttachments", "sendNotifications") ||
				!calendarSendUpdates(c) || !c.Decode(&in) {
				return
			}
			version := c.Query.Get("conferenceDataVersion")
			if version != "" && version != "0" && version != "1" {
				c.Bad("conferenceDataVersion %q is not 0 or 1", version)
				return
			}
			cal := st.pathCalendar(c, true)
			if cal == nil {
				return
			}
			if in.Start == nil || in.End == nil {
				c.Bad("an event needs start and end")
				return
			}
			e := &CalendarEvent{ID: "evt" + strings.ToLower(calendarLast4(s.NewID(""))) + "q7m2k9v1", CalendarID: cal.ID, Status: "confirmed",
				Organizer: calendarPerson{Email: Email, Self: true}, Created: calendarNow}
			if !cal.Primary {
				e.Organizer = calendarPerson{Email: cal.ID, DisplayName: cal.Summary}
			}
			if !st.apply(c, e, in, version == "1") {
				return
			}
			// Google lists the organizer among the guests it invites.
			if len(e.Attendees) > 0 && e.Organizer.Email == Email && !slices.ContainsFunc(e.Attendees, func(a calendarAttendee) bool { return a.Self }) {
				e.Attendees = slices.Insert(e.Attendees, 0, calendarAttendee{Email: Email, Organizer: true, Self: true, ResponseStatus: "accepted"})
			}
			e.Sequence = 0
			st.Events = append(st.Events, e)
			c.JSON(e.render(calendarLoc(cal.TimeZone), 0))
		})

		r.Handle("POST /calendar/v3/calendars/{cal}/events/quickAdd", calendarWriteScopes, func(c *Call) {
			if !c.Params([]string{"text"}, "sendUpdates", "sendNotifications") || !calendarSendUpdates(c) {
				return
			}
			if len(c.Body) > 0 {
				c.Bad("quickAdd takes no body, got %s", c.Body)
				return
			}
			cal := st.pathCalendar(c, true)
			if cal == nil {
				return
			}
			e := st.quickAdd(cal, c.Query.Get("text"))
			e.ID = "qa" + strings.ToLower(calendarLast4(s.NewID(""))) + "h3j5l7n9"
			st.Events = append(st.Events, e)
			c.JSON(e.render(calendarLoc(cal.TimeZone), 0))
		})

		r.Handle("PATCH /calendar/v3/calendars/{cal}/events/{event}", calendarWriteScopes, func(c *Call) {
			var in calendarEventInput
			if !c.Params(nil, "conferenceDataVersion", "sendUpdates", "maxAttendees", "supportsAttachments", "sendNotifications") ||
				!calendarSendUpdates(c) || !c.Decode(&in) {
				return
			}
			cal, e, stored := st.pathEvent(c, true)
			if e == nil {
				return
			}
			if in.Recurrence != nil && e.RecurringEventID != "" {
				c.Invalid("Cannot change the recurrence of a single occurrence of a recurring event.")
				return
			}
			next := *e
			next.Attendees = slices.Clone(e.Attendees)
			if !st.apply(c, &next, in, c.Query.Get("conferenceDataVersion") == "1") {
				return
			}
			if stored {
				*e = next
			} else {
				e = &next
				st.Events = append(st.Events, e)
			}
			c.JSON(e.render(calendarLoc(cal.TimeZone), 0))
		})

		r.Handle("DELETE /calendar/v3/calendars/{cal}/events/{event}", calendarWriteScopes, func(c *Call) {
			if !c.Params(nil, "sendUpdates", "sendNotifications") || !calendarSendUpdates(c) {
				return
			}
			_, e, stored := st.pathEvent(c, true)
			if e == nil {
				return
			}
			if e.Status == "cancelled" {
				calendarGone(c)
				return
			}
			if !stored {
				st.Events = append(st.Events, e)
			}
			e.Status, e.Updated = "cancelled", calendarNow
			e.version++
			c.Empty()
		})

		r.Handle("POST /calendar/v3/freeBusy", calendarFreeBusyScopes, func(c *Call) {
			var in struct {
				TimeMin              string `json:"timeMin"`
				TimeMax              string `json:"timeMax"`
				TimeZone             string `json:"timeZone"`
				GroupExpansionMax    *int   `json:"groupExpansionMax"`
				CalendarExpansionMax *int   `json:"calendarExpansionMax"`
				Items                []struct {
					ID string `json:"id"`
				} `json:"items"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			from, ok := calendarInstant(c, "timeMin", in.TimeMin)
			if !ok {
				return
			}
			to, ok := calendarInstant(c, "timeMax", in.TimeMax)
			if !ok {
				return
			}
			if !from.Before(to) {
				c.Invalid("The specified time range is empty.")
				return
			}
			loc := time.UTC
			if in.TimeZone != "" {
				var err error
				if loc, err = time.LoadLocation(in.TimeZone); err != nil || in.TimeZone == "Local" {
					c.Invalid("Invalid time zone definition: " + in.TimeZone)
					return
				}
			}
			if len(in.Items) > 50 {
				c.Invalid("Too many calendars requested: 50 at most.")
				return
			}
			out := map[string]any{}
			for _, item := range in.Items {
				var periods []calendarPeriod
				if cal := st.calendar(item.ID); cal != nil {
					periods = st.busy(cal, to)
				} else if busy, ok := st.Busy[strings.ToLower(item.ID)]; ok {
					periods = busy
				} else {
					out[item.ID] = map[string]any{"errors": []map[string]string{{"domain": "global", "reason": "notFound"}}, "busy": []any{}}
					continue
				}
				busy := []map[string]string{}
				for _, p := range calendarClip(periods, from, to) {
					busy = append(busy, map[string]string{"start": p.Start.In(loc).Format(time.RFC3339), "end": p.End.In(loc).Format(time.RFC3339)})
				}
				out[item.ID] = map[string]any{"busy": busy}
			}
			c.JSON(map[string]any{"kind": "calendar#freeBusy", "timeMin": from.UTC().Format("2006-01-02T15:04:05.000Z"),
				"timeMax": to.UTC().Format("2006-01-02T15:04:05.000Z"), "calendars": out})
		})
	})
}

// Package registry is toolroute's catalogue: which tools exist, how they are
// grouped into tool groups, the skills, the loader that turns JS manifests
// into tools, the two meta-tools (load_tool_group and load_skill), the
// system prompt that lists the groups, and the ranking that search_tools
// will use to find tools for a query (Index, with its Porter stemmer).
//
// The package is pure: it does no I/O, keeps no clock and uses nothing outside
// the standard library, so it builds natively and for GOOS=wasip1. A host reads
// files and hands their text in; the registry answers with tools, reports and
// strings. Everything it returns is ordered by registration (groups) and by
// manifest order (a group's tools), never by map iteration, so the same
// registrations in the same order give byte-identical output.
//
// The turn engine that uses the catalogue lives in registry/session.
package registry

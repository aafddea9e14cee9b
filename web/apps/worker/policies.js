// The worker's approval rules. A tool that acts on the world asks the user
// before it runs (GET/POST /api/sessions/{id}/approvals) unless the
// TOOLROUTE_POLICIES variable allows or denies it: a comma-separated list
// of tool:NAME=DECISION or group:NAME=DECISION, with DECISION ask, allow or
// deny, such as
//   TOOLROUTE_POLICIES = "group:google_calendar=allow,tool:gmail_send=deny"

const ENTRY = /^(tool|group):([a-z][a-z0-9_]*)=(ask|allow|deny)$/;

// parsePolicies gives {policies, problems}: the rules for createHost, and
// what could not be read, each saying what is expected.
export function parsePolicies(text) {
  const policies = [];
  const problems = [];
  for (const raw of String(text ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = ENTRY.exec(entry);
    if (!m) {
      problems.push(`TOOLROUTE_POLICIES: "${entry}" is not tool:NAME=ask|allow|deny or group:NAME=ask|allow|deny`);
      continue;
    }
    policies.push({ [m[1]]: m[2], decision: m[3] });
  }
  return { policies, problems };
}

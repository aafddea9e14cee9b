// Approval before a tool acts, in the worker: serve's approvals
// (internal/server/approvals.go) with the question kept in the session's
// Durable Object rather than in memory, since the POST answering it may
// reach another isolate than the turn waiting on it. This file holds the
// question's rules and the turn's side (createApprover); SessionLog
// (sessions.js) stores the question, and api.js routes GET and POST
// /api/sessions/{id}/approvals to it. Nothing here does I/O but through
// the stub it is given, and nothing is imported: the Durable Object's
// module takes the rules too.

// APPROVAL_TIMEOUT_MS is how long a question waits for the user before its
// calls are denied, as serve's DefaultApprovalTimeout: a turn does not hold
// its session for good because the page was left open.
export const APPROVAL_TIMEOUT_MS = 10 * 60 * 1000;
// APPROVAL_POLL_MS is how often a waiting turn reads its question's answers
// from the session's Durable Object.
export const APPROVAL_POLL_MS = 300;

// createApprover makes createHost's approve: it records the question in
// the session's Durable Object (SessionLog.ask) and polls it until every
// call has its answer, the turn's signal aborts (the client went away: the
// calls do not run) or the question expires (every call denied). deps:
//   session: (id) => the session's SessionLog stub;
//   token: (id) => the lease token of the session's running turn;
//   now: () => Date; sleep: (ms, signal) => Promise, rejecting when
//   signal aborts (host.js's sleep); timeoutMs (APPROVAL_TIMEOUT_MS);
//   pollMs (APPROVAL_POLL_MS).
export function createApprover(deps) {
  const { session, token: tokenFor, now, sleep: wait } = deps;
  const timeoutMs = deps.timeoutMs ?? APPROVAL_TIMEOUT_MS;
  const pollMs = deps.pollMs ?? APPROVAL_POLL_MS;
  return async (id, calls, { signal } = {}) => {
    const stub = session(id);
    const token = tokenFor(id);
    // The turn recorded the question before its event went out (api.js's
    // send): asking again keeps its answers and its expiry.
    const expires = Date.parse(await stub.ask(token, calls, expiry(now, timeoutMs)));
    try {
      for (;;) {
        signal?.throwIfAborted();
        const r = await stub.poll(token);
        if (r.done) return r.answers;
        const left = expires - now().getTime();
        if (left <= 0) return []; // the host denies the calls no one answered
        await wait(Math.min(pollMs, left), signal);
      }
    } finally {
      try {
        await stub.drop(token);
      } catch {
        // it expires anyway, and the next turn's begin clears it
      }
    }
  };
}

// expiry is when a question asked now expires, as an ISO time.
export function expiry(now, timeoutMs = APPROVAL_TIMEOUT_MS) {
  return new Date(now().getTime() + timeoutMs).toISOString();
}

// A question is what SessionLog stores: {token, calls, expires, answers:
// {id: answer}, grants: {id: [secret]}}, token being the lease of the turn
// that asked.

// pending reports whether q still waits for an answer at now (ISO).
export function pending(q, now) {
  return q !== null && waiting(q).length > 0 && Date.parse(now) < Date.parse(q.expires);
}

// view is q as GET .../approvals shows it, serve's questionJSON.
export function view(session, q) {
  return { session, calls: q.calls, answers: given(q), waiting: waiting(q), expires: q.expires };
}

// answer records answers in q, all or none, which the module has checked
// (toolroute_check's approval_answers, as serve does) against the question
// as it was then, asked (snapshot of its calls and answers). It gives
// {waiting: [ids]} (none: the turn goes on), or {stale: true}, recording
// nothing, when q is no longer that question (another answer came in
// between): the caller reads it again and asks the module again.
export function answer(q, answers, asked) {
  if (snapshot(q.calls, given(q)) !== asked) return { stale: true };
  for (const a of answers) {
    q.answers[a.id] = a.answer;
    if (a.grant?.length && a.answer !== "deny") (q.grants ??= {})[a.id] = a.grant;
  }
  return { waiting: waiting(q) };
}

// snapshot is what the module checked answers against: a question's calls
// and the answers it had (view's calls and answers).
export function snapshot(calls, answers) {
  return JSON.stringify([calls, answers]);
}

// sameCalls reports whether two questions ask about the same calls.
export function sameCalls(a, b) {
  return a.length === b.length && a.every((c, i) => c.id === b[i].id);
}

// given is q's answers so far, in its calls' order.
export function given(q) {
  return q.calls.filter((c) => Object.hasOwn(q.answers, c.id)).map((c) => {
    const grant = q.grants?.[c.id];
    return grant ? { id: c.id, answer: q.answers[c.id], grant } : { id: c.id, answer: q.answers[c.id] };
  });
}

// waiting is the ids of q's calls with no answer yet.
export function waiting(q) {
  return q.calls.filter((c) => !Object.hasOwn(q.answers, c.id)).map((c) => c.id);
}

// search_history: the host's search of every session's messages
// (toolroute.history), one line per match.
async function execute(params) {
  const query = String(params.query);
  const hits = await toolroute.history.search(query, { limit: params.limit > 0 ? params.limit : 10 });
  if (hits.length === 0) return "No past messages match " + JSON.stringify(query) + ".";
  const lines = hits.map((h) => {
    const when = h.time ? " on " + h.time.slice(0, 10) + " " + h.time.slice(11, 16) : "";
    return "- session " + h.session + ", message " + h.seq + " (" + h.type + when + "): " + h.snippet;
  });
  return hits.length + " matches for " + JSON.stringify(query) + ":\n" + lines.join("\n");
}

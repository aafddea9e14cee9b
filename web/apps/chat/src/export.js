// A chat as a file to keep: Markdown to read, JSON to process. Both are
// made from the session's message log as the core gives it (the page's or
// the server's, the same shape), so what is exported is what the chat
// holds, tool calls and their results included.

// EXPORT_VERSION names the JSON export's shape: {toolroute_chat: 1,
// session: {id, title, created, updated, where}, messages: [...]}, the
// messages as the log keeps them.
export const EXPORT_VERSION = 1;

// chatJSON is the JSON export of session s and its log.
export function chatJSON(s, messages) {
  const session = { id: String(s?.id ?? ""), title: String(s?.title ?? ""), created: s?.created ?? "", updated: s?.updated ?? "", where: s?.where ?? "" };
  return JSON.stringify({ toolroute_chat: EXPORT_VERSION, session, messages }, null, 2) + "\n";
}

// fence is a code fence for text: longer than any run of backticks in it,
// so a reply's own code blocks cannot close it.
function fence(text) {
  const longest = Math.max(0, ...[...String(text).matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

function block(text, lang = "") {
  const t = String(text ?? "");
  const f = fence(t);
  return `${f}${lang}\n${t}\n${f}`;
}

function pretty(input) {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return String(input ?? "");
  }
}

// chatMarkdown is the Markdown export of session s and its log: the
// title, then each message under a heading that says who wrote it; tool
// calls and results in code blocks, summaries and approvals in a line.
export function chatMarkdown(s, messages) {
  const out = [`# ${oneLine(s?.title) || "New chat"}`, ""];
  const when = [s?.created && `started ${s.created}`, s?.updated && `last message ${s.updated}`].filter(Boolean).join(", ");
  if (when) out.push(`_${when}_`, "");
  for (const m of messages ?? []) {
    switch (m.type) {
      case "user":
        out.push("## You", "", String(m.content ?? ""), "");
        break;
      case "assistant":
        if (m.content) out.push("## Assistant", "", String(m.content), "");
        break;
      case "tool_call":
        out.push(`### Tool call: ${oneLine(m.tool_name)}`, "", block(pretty(m.tool_input || "{}"), "json"), "");
        break;
      case "tool_result": {
        const failed = m.status && m.status !== "success";
        out.push(`### Result of ${oneLine(m.tool_name)}${failed ? ` (failed${m.error_type ? `: ${oneLine(m.error_type)}` : ""})` : ""}`, "", block(m.content ?? ""), "");
        break;
      }
      case "approval":
        out.push(`_${oneLine(m.tool_name)}: ${m.content === "deny" ? "denied" : m.content === "session" ? "allowed for this chat" : "allowed once"}_`, "");
        break;
      case "summary":
        out.push("### Earlier messages summarised", "", String(m.content ?? ""), "");
        break;
    }
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

function oneLine(s) {
  return String(s ?? "").replace(/\s+/g, " ").trim();
}

// exportName is a file name for a chat's export: its title's words, safe
// in any file system, and the extension.
export function exportName(s, ext) {
  const base = oneLine(s?.title).toLowerCase().normalize("NFKD").replace(/\p{M}/gu, "").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "chat";
  return `${base}.${ext}`;
}

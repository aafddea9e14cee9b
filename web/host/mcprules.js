// The rules that make an MCP server a tool group, the same in every host
// (DESIGN.md, "MCP servers as tool groups"; the Go program's are host/mcp):
// names, the group's listing, approval from annotations, and the text the
// model reads of a tools/call result. Pure functions: testdata/mcp holds
// the cases every host replays.

// DEFAULT_TIMEOUT_SECONDS is a call's timeout when the config gives none.
export const DEFAULT_TIMEOUT_SECONDS = 60;
// MAX_DESCRIPTION is how much of a server's instructions the listing keeps.
const MAX_DESCRIPTION = 200;

// validName makes a name the registry takes (^[a-z][a-z0-9_]*$): lower
// case, each run of other characters one "_", and "mcp_" before a name
// that does not start with a letter.
export function validName(s) {
  const n = String(s ?? "").toLowerCase().replace(/[^a-z0-9_]+/g, "_");
  return /^[a-z]/.test(n) ? n : "mcp_" + n;
}

// displayNameFromKey is the registry's DisplayNameFromFile: "my_tools"
// becomes "My Tools".
export function displayNameFromKey(key) {
  return String(key).split(/[_\- ]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
}

// groupOf is a server's group: {name, display_name, description}. info is
// the server's implementation info ({name, title, version}); instructions
// its instructions text; toolNames the names its tools got.
export function groupOf(key, info, instructions, toolNames) {
  // The first line with text, without a markdown heading's marks.
  const firstLine = String(instructions ?? "").split("\n").map((l) => l.replace(/^\s*#+\s*/, "").trim()).find((l) => l !== "") ?? "";
  const chars = [...firstLine];
  const description = chars.length > MAX_DESCRIPTION ? chars.slice(0, MAX_DESCRIPTION - 1).join("") + "…" : firstLine;
  return {
    name: validName(key),
    display_name: String(info?.title || info?.name || displayNameFromKey(key)),
    description: description || "Tools: " + toolNames.join(", "),
  };
}

// permissionsOf is what a tool's annotations ask of the approval policy:
// read-only tools never ask; others are destructive unless they say not.
export function permissionsOf(annotations) {
  if (annotations?.readOnlyHint === true) return ["read"];
  if (annotations?.destructiveHint === false) return ["write"];
  return ["delete"];
}

// toolsOf gives a server's tools as the module's catalogue takes host
// tools, each with the MCP name its calls go out with: [{tool, mcpName}].
// taken holds the names other tools have (a Set); a name made valid that
// is taken becomes GROUP_NAME, and a changed name is said in the
// description.
export function toolsOf(group, mcpTools, taken, timeoutSeconds = DEFAULT_TIMEOUT_SECONDS) {
  const used = new Set(taken);
  const out = [];
  for (const t of mcpTools ?? []) {
    if (typeof t?.name !== "string" || t.name === "") continue;
    let name = validName(t.name);
    if (used.has(name)) name = validName(`${group}_${t.name}`);
    if (used.has(name)) continue; // still taken: the listing cannot hold it twice
    used.add(name);
    let description = String(t.description ?? t.title ?? t.annotations?.title ?? "");
    if (name !== t.name) description += `${description ? " " : ""}(MCP tool ${JSON.stringify(t.name)})`;
    const parameters = t.inputSchema && typeof t.inputSchema === "object" ? t.inputSchema : { type: "object", properties: {} };
    out.push({
      tool: { name, description, group, parameters, required_permissions: permissionsOf(t.annotations), timeout_seconds: timeoutSeconds },
      mcpName: t.name,
    });
  }
  return out;
}

// McpToolError is a call's failure the model reads, with its type.
export class McpToolError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// resultText is the text the model reads of a tools/call result; a result
// with isError throws a tool_error failure with that text.
export function resultText(result) {
  const parts = [];
  let texts = 0;
  for (const c of Array.isArray(result?.content) ? result.content : []) {
    switch (c?.type) {
      case "text":
        parts.push(String(c.text ?? ""));
        texts++;
        break;
      case "image":
      case "audio":
        parts.push(`[${c.type} ${c.mimeType ?? "unknown type"}, ${base64Bytes(c.data)} bytes]`);
        break;
      case "resource_link":
        parts.push(`[resource ${c.name ?? c.uri}: ${c.uri}]`);
        break;
      case "resource": {
        const r = c.resource ?? {};
        if (typeof r.text === "string") parts.push(`[resource ${r.uri}]\n${r.text}`);
        else parts.push(`[resource ${r.uri}: ${r.mimeType ?? "unknown type"}, ${base64Bytes(r.blob)} bytes]`);
        break;
      }
      default:
        parts.push(`[${String(c?.type ?? "unknown")} content]`);
    }
  }
  if (texts === 0 && result?.structuredContent !== undefined && result?.structuredContent !== null) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const text = parts.join("\n\n");
  if (result?.isError === true) throw new McpToolError("tool_error", text || "the tool failed and said nothing more");
  return text;
}

// base64Bytes is how many bytes base64 text decodes to.
function base64Bytes(s) {
  const t = String(s ?? "").replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((t.length * 3) / 4);
}

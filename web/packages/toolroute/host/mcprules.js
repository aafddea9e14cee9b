// The rules that make an MCP server a tool group, the same in every host
// (docs/design/mcp.md; the Go program's are host/mcp):
// names, the group's listing, approval from annotations, and the text the
// model reads of a tools/call result. Pure functions: testdata/mcp holds
// the cases every host replays.

// DEFAULT_TIMEOUT_SECONDS is a call's timeout when the config gives none.
export const DEFAULT_TIMEOUT_SECONDS = 60;
// MAX_DESCRIPTION is how much of a server's instructions the listing keeps.
const MAX_DESCRIPTION = 200;

// MAX_NAME is the longest name the providers take.
export const MAX_NAME = 64;

// validName makes a name the registry takes (^[a-z][a-z0-9_]*$): lower
// case, each run of other characters one "_", "mcp_" before a name that
// does not start with a letter, cut to MAX_NAME characters.
export function validName(s) {
  let n = String(s ?? "").toLowerCase().replace(/[^a-z0-9_]+/gu, "_");
  if (!/^[a-z]/.test(n)) n = "mcp_" + n;
  return n.slice(0, MAX_NAME);
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
  let description = "";
  for (const raw of String(instructions ?? "").split("\n")) {
    // The first line with text, without a markdown heading's marks.
    const line = raw.trim().replace(/^#+/, "").trim();
    if (line === "") continue;
    const chars = [...line];
    description = chars.length > MAX_DESCRIPTION ? chars.slice(0, MAX_DESCRIPTION).join("").trim() : line;
    break;
  }
  const title = String(info?.title ?? "").trim();
  const name = String(info?.name ?? "").trim();
  return {
    name: validName(key),
    display_name: title || name || displayNameFromKey(key),
    description: description || "Tools: " + toolNames.join(", "),
  };
}

// permissionsOf is what a tool's annotations ask of the approval policy:
// read-only tools never ask; others are destructive unless they say not;
// network unless openWorldHint is false (the spec's default is true).
export function permissionsOf(annotations) {
  const what = annotations?.readOnlyHint === true ? "read" : annotations?.destructiveHint === false ? "write" : "delete";
  return annotations?.openWorldHint === false ? [what] : [what, "network"];
}

// toolsOf gives a server's tools as the module's catalogue takes host
// tools, in the server's order, each with the MCP name its calls go out
// with: [{tool, mcpName}], or {mcpName, skipped: why} for one left out (no
// name, a schema that is not an object schema, or a name taken twice).
// taken holds the names other tools have (a Set); a valid name that is
// taken becomes GROUP_NAME, and a changed name is said in the description.
export function toolsOf(key, mcpTools, taken, timeoutSeconds = DEFAULT_TIMEOUT_SECONDS) {
  const group = validName(key);
  const used = new Set(taken);
  const out = [];
  for (const t of mcpTools ?? []) {
    if (!t || typeof t !== "object") continue;
    const mcpName = typeof t.name === "string" ? t.name : "";
    if (mcpName.trim() === "") {
      out.push({ mcpName, skipped: "it has no name" });
      continue;
    }
    const why = schemaProblem(t.inputSchema);
    if (why) {
      out.push({ mcpName, skipped: `its inputSchema is not usable: ${why}` });
      continue;
    }
    let name = validName(mcpName);
    if (used.has(name)) name = validName(`${group}_${name}`);
    if (used.has(name)) {
      out.push({ mcpName, skipped: `its name ${validName(mcpName)} and ${name} are both taken by other tools` });
      continue;
    }
    used.add(name);
    let description = [t.description, t.title, t.annotations?.title].map((d) => String(d ?? "").trim()).find((d) => d !== "") ?? "";
    if (description === "") description = `Tool ${JSON.stringify(mcpName)} of MCP server '${key}'`;
    if (name !== mcpName) description += ` (MCP tool ${JSON.stringify(mcpName)})`;
    const parameters = t.inputSchema === undefined || t.inputSchema === null ? { type: "object", properties: {} } : sortedKeys(t.inputSchema);
    out.push({
      tool: { name, description, group, parameters, required_permissions: permissionsOf(t.annotations), timeout_seconds: timeoutSeconds },
      mcpName,
    });
  }
  return out;
}

// schemaProblem says why an inputSchema is not an object schema the
// registry takes, "" when it is (the registry's NormalizeSchema rules).
function schemaProblem(s) {
  if (s === undefined || s === null) return "";
  if (typeof s !== "object" || Array.isArray(s)) return "it is not a JSON Schema object";
  if (s.type !== undefined && s.type !== "object") return "its type is not \"object\"";
  if (s.properties !== undefined) {
    if (!s.properties || typeof s.properties !== "object" || Array.isArray(s.properties)) return "its properties are not an object";
    for (const k of Object.keys(s.properties)) {
      const v = s.properties[k];
      if (!v || typeof v !== "object" || Array.isArray(v)) return `its property ${k} is not a schema object`;
    }
  }
  if (s.required !== undefined && !Array.isArray(s.required)) return "its required is not an array";
  return "";
}

// sortedKeys is a JSON value with every object's keys sorted, as the Go
// program gives schemas and structured content (its SDK reads them into
// maps).
export function sortedKeys(v) {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
    return out;
  }
  return v;
}

// McpToolError is a call's failure the model reads, with its type.
export class McpToolError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// resultText is the text the model reads of a tools/call result of the
// tool mcpName; a result with isError throws a tool_error failure with that
// text.
export function resultText(result, mcpName = "") {
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
        parts.push(c.mimeType ? `[${c.type} ${c.mimeType}, ${base64Bytes(c.data)} bytes]` : `[${c.type}, ${base64Bytes(c.data)} bytes]`);
        break;
      case "resource_link":
        parts.push(`[resource ${c.name ?? ""}: ${c.uri ?? ""}]`);
        break;
      case "resource": {
        const r = c.resource;
        if (!r) parts.push("[resource]");
        else if (typeof r.blob === "string") parts.push(r.mimeType ? `[resource ${r.uri}: ${r.mimeType}, ${base64Bytes(r.blob)} bytes]` : `[resource ${r.uri}: ${base64Bytes(r.blob)} bytes]`);
        else parts.push(`[resource ${r.uri}]\n${r.text ?? ""}`);
        break;
      }
      default:
        parts.push("[content of a kind toolroute does not show]");
    }
  }
  if (texts === 0 && result?.structuredContent !== undefined && result?.structuredContent !== null) {
    parts.push(JSON.stringify(sortedKeys(result.structuredContent)));
  }
  let text = parts.join("\n\n");
  if (result?.isError === true) {
    if (text.trim() === "") text = `MCP tool ${JSON.stringify(mcpName)} failed without saying why: try other arguments, or another tool`;
    throw new McpToolError("tool_error", text);
  }
  return text;
}

// resultImages are a tools/call result's images, in order, as the module
// takes them ([{mime_type, data}]), for the model to see beside the text
// where the wire format carries them; the text names each with a
// placeholder. The module keeps those a model can take.
export function resultImages(result) {
  const out = [];
  for (const c of Array.isArray(result?.content) ? result.content : []) {
    if (c?.type === "image") out.push({ mime_type: String(c.mimeType ?? ""), data: String(c.data ?? "") });
  }
  return out;
}

// rpcErrorText is a JSON-RPC error's failure text.
export function rpcErrorText(key, code, message) {
  return `MCP server '${key}' answered error ${code}: ${message}`;
}

// unavailableText is the failure of a call to a server that is not there:
// why, and when toolroute tries it again; midCall when it broke off during
// the call, which may have taken effect.
export function unavailableText(key, why, retrySeconds, midCall) {
  let text = `MCP server '${key}' is unavailable: ${why}. toolroute starts it again in ${Math.max(1, Math.round(retrySeconds))} s: try the call again then, or do without this tool.`;
  if (midCall) text += " The call may or may not have taken effect: check before repeating anything that changes data.";
  return text;
}

// base64Bytes is how many bytes base64 text decodes to.
function base64Bytes(s) {
  const t = String(s ?? "").replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((t.length * 3) / 4);
}

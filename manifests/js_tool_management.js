// The js_tool_management group: the user's own JavaScript tools, kept by
// the host (toolroute.toolfiles). The host checks what this code cannot be
// trusted to: the manifest loads, the code compiles, a new name is free,
// and a tool holds only the secrets the user granted (see
// docs/design/builtin-tools.md). Then the host reloads its catalogue, so a created or changed
// tool is offered from the next model call.

function fail(type, message) {
  const e = new Error(message);
  e.type = type;
  throw e;
}

// grants says which secrets a manifest lets its code read, "" when none.
function grants(m) {
  const g = [];
  if (m.env && m.env.length > 0) g.push("the variables " + m.env.join(", "));
  if ((m.requiredPermissions || []).includes("google")) g.push("the Google account");
  return g.join(" and ");
}

async function createTool(params) {
  if (typeof params.description !== "string" || typeof params.code !== "string") {
    fail("invalid_arguments", "give the tool's description and code");
  }
  const name = String(params.name ?? "");
  const manifest = { name, description: params.description };
  if (params.parameters !== undefined) manifest.parameters = params.parameters;
  if (params.timeout_seconds) manifest.timeoutSeconds = params.timeout_seconds;
  // The host adds the secrets the user granted at approval, and no others.
  const saved = await toolroute.toolfiles.write(manifest, params.code, { replace: false });
  let note = "";
  const granted = grants(saved.manifest);
  if (granted !== "") note = " The user granted it " + granted + ".";
  const have = saved.manifest.env || [];
  const asked = (Array.isArray(params.env) ? params.env : []).filter((e) => !have.includes(e));
  if (asked.length > 0) {
    note += " It does not read " + asked.join(", ") + ": code written here gets only the secrets the user grants, when asked about the \"secrets\" argument";
    note += saved.handEdit
      ? ", or by adding \"env\": [" + asked.map((e) => JSON.stringify(e)).join(", ") + "] to " + saved.handEdit + " by hand."
      : ".";
  }
  return "Created " + name + " (" + name + ".json, " + name + ".js " + saved.place + "). It can be called now." + note;
}

async function listTools() {
  const { place, files } = await toolroute.toolfiles.list();
  if (files.length === 0) return "There are no user tools " + place + ": create one with create_js_tool.";
  return files
    .map((f) => [f.file, ...f.tools.map((t) => "  - " + t.name + ": " + t.description), ...f.problems.map((p) => "  ! " + p)].join("\n"))
    .join("\n");
}

async function updateTool(params) {
  const name = String(params.name ?? "");
  const { manifest, code } = await toolroute.toolfiles.read(name);
  if (params.description !== undefined) manifest.description = params.description;
  if (params.parameters !== undefined) manifest.parameters = params.parameters;
  // Fewer variables give up a grant; the host refuses new ones.
  if (params.env !== undefined) manifest.env = params.env;
  if (params.timeout_seconds) manifest.timeoutSeconds = params.timeout_seconds;
  await toolroute.toolfiles.write(manifest, params.code ?? code, { replace: true });
  return "Updated " + name + ". The new version is used from now on.";
}

async function deleteTool(params) {
  const name = String(params.name ?? "");
  await toolroute.toolfiles.remove(name);
  return "Deleted " + name + ".";
}

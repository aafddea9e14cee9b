// Typed tool definitions: a host tool given as code rather than as catalogue
// JSON. A tool is {name, description, inputSchema, execute}; a group is
// {name, description, tools}. inputSchema is a JSON Schema object, or a
// schema that gives its own JSON Schema through Standard JSON Schema
// (zod 4.2+, ArkType, Valibot...: its "~standard".jsonSchema.input), so this
// package imports no schema library.
//
// They become what the module already takes: the catalogue's host groups
// and tools (wasm/ABI.md, toolroute_load) and the native functions that run
// them. The module checks each definition (names, descriptions, schemas,
// timeouts) and each call's arguments as it does for any host tool; what
// it refused is in the load report, and createHost and createRouter throw
// with it, as a definition in code that did not load is a bug to fix now.
// Nothing here decides what a good name, schema or call is.

// tool gives back its definition: it is there for editors and TypeScript
// (the arguments execute receives are typed from inputSchema), as the AI
// SDK's tool() is.
export function tool(definition) {
  return definition;
}

// group gives back its definition, as tool does.
export function group(definition) {
  return definition;
}

// TOOL_KEYS and GROUP_KEYS are the fields of a definition, in camelCase as
// every option of the package is.
const TOOL_KEYS = ["name", "description", "inputSchema", "execute", "timeoutSeconds", "requiredPermissions", "env"];
const GROUP_KEYS = ["name", "displayName", "description", "tools"];

// typedCatalogue turns typed definitions (an array of tools and groups, or
// an object of them by name) into {groups, tools}, the catalogue's host
// definitions, and native, their execute functions by tool name. It throws
// only where it cannot do that: a definition that is not an object, a
// field it does not know, an execute that is not a function, a schema it
// cannot turn into JSON. where names the option in its errors.
export function typedCatalogue(definitions, where = "tools") {
  const out = { groups: [], tools: [], native: {} };
  if (definitions === undefined || definitions === null) return out;
  for (const [name, d, at] of entries(definitions, where)) {
    if (isGroup(d)) {
      known(d, GROUP_KEYS, at, "group");
      out.groups.push(compact({ name, display_name: d.displayName, description: d.description }));
      for (const [toolName, t, tat] of entries(d.tools, `${at}.tools`)) {
        if (isGroup(t)) throw new Error(`toolroute: ${tat} is a group inside group '${name}': groups do not nest; list its tools in the group`);
        addTool(out, toolName, t, tat, name);
      }
    } else {
      addTool(out, name, d, at, undefined);
    }
  }
  return out;
}

// withTyped is catalogue with typed's groups and tools (typedCatalogue's)
// after its own.
export function withTyped(catalogue, typed) {
  if (!typed.tools.length && !typed.groups.length) return catalogue;
  const c = catalogue ?? {};
  return { ...c, groups: [...(c.groups ?? []), ...typed.groups], tools: [...(c.tools ?? []), ...typed.tools] };
}

// nativeWith is a host's native functions with typed's execute functions
// beside them. A name both give is an error: one name would run two
// functions.
export function nativeWith(native, typed) {
  const names = Object.keys(typed.native);
  if (!names.length) return native;
  for (const name of names) {
    if (native && Object.hasOwn(native, name)) {
      throw new Error(`toolroute: tool '${name}' is defined in options.tools with its execute and given again in options.native: keep one`);
    }
  }
  return { ...native, ...typed.native };
}

// refusedTyped is the module's refusals of typed definitions, as an Error
// to throw, or null when each loaded: description is toolroute_describe's
// answer after the load, report its load report. A definition that did
// not load is missing from the description as a host tool or group.
export function refusedTyped(typed, description, report) {
  const hostTools = new Set(description.tools.filter((t) => t.origin?.kind === "host").map((t) => t.name));
  const hostGroups = new Set(description.groups.filter((g) => g.origin?.kind === "host").map((g) => g.name));
  const missing = [
    ...typed.groups.filter((g) => !hostGroups.has(g.name)).map((g) => `group ${named(g)}`),
    ...typed.tools.filter((t) => !hostTools.has(t.name)).map((t) => `tool ${named(t)}`),
  ];
  if (!missing.length) return null;
  const why = report?.errors?.length ? `: ${report.errors.join("; ")}` : "";
  return new Error(`toolroute: the module did not load ${missing.join(", ")} of options.tools${why}`);
}

const named = (d) => (typeof d.name === "string" ? `'${d.name}'` : "without a name");

// entries gives [name, definition, where] for an array of definitions
// (each names itself) or an object of them by name.
function entries(list, where) {
  if (Array.isArray(list)) {
    return list.map((d, i) => {
      const at = `${where}[${i}]`;
      mustBeObject(d, at);
      return [d.name, d, at];
    });
  }
  if (list && typeof list === "object") {
    return Object.entries(list).map(([key, d]) => {
      const at = `${where}.${key}`;
      mustBeObject(d, at);
      if (d.name !== undefined && d.name !== key) throw new Error(`toolroute: ${at} is named '${d.name}': give it under its own name, or leave name out`);
      return [key, d, at];
    });
  }
  throw new Error(`toolroute: ${where} must be an array of tools and groups, or an object of them by name`);
}

function mustBeObject(d, at) {
  if (!d || typeof d !== "object" || Array.isArray(d)) throw new Error(`toolroute: ${at} must be a tool ({name, description, inputSchema, execute}) or a group ({name, description, tools})`);
}

// isGroup: a group holds tools; a tool has execute.
function isGroup(d) {
  return d.tools !== undefined && d.execute === undefined;
}

function addTool(out, name, t, at, groupName) {
  known(t, TOOL_KEYS, at, "tool");
  if (typeof t.execute !== "function") throw new Error(`toolroute: ${at} has no execute function: give execute(args, {signal}), which runs the tool and returns its result`);
  out.tools.push(compact({
    name,
    description: t.description,
    group: groupName,
    parameters: jsonSchemaOf(t.inputSchema, at),
    timeout_seconds: t.timeoutSeconds,
    required_permissions: t.requiredPermissions,
    env: t.env,
  }));
  // The first definition of a name runs, as the module keeps the first.
  if (typeof name === "string" && !Object.hasOwn(out.native, name)) out.native[name] = t.execute;
}

// known refuses a field the definition does not have, such as parameters
// for inputSchema: left alone, the tool would load without it.
function known(d, keys, at, what) {
  for (const k of Object.keys(d)) {
    if (!keys.includes(k)) throw new Error(`toolroute: ${at} has a field '${k}' a ${what} does not have: its fields are ${keys.join(", ")}`);
  }
}

// jsonSchemaOf is inputSchema as JSON Schema: as given when it is one; from
// a schema library through Standard JSON Schema ("~standard".jsonSchema,
// which zod 4.2+, ArkType and Valibot's adapter give), as draft-07, the draft
// models' tool schemas follow; none for no parameters.
function jsonSchemaOf(schema, at) {
  if (schema === undefined || schema === null) return undefined;
  const std = schema["~standard"];
  if (std && typeof std === "object") {
    const input = std.jsonSchema?.input;
    if (typeof input !== "function") {
      throw new Error(`toolroute: ${at}.inputSchema is a ${std.vendor ?? "Standard Schema"} schema that gives no JSON Schema (Standard JSON Schema, which zod 4.2 and newer and ArkType have): give its JSON Schema instead, such as zod's z.toJSONSchema(schema)`);
    }
    return input({ target: "draft-07" });
  }
  if (typeof schema !== "object" || Array.isArray(schema)) {
    throw new Error(`toolroute: ${at}.inputSchema must be a JSON Schema object, like {type: "object", properties: {...}}, or a zod schema`);
  }
  return schema;
}

// compact drops the fields left undefined.
function compact(o) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

// runJSOf is a host's or a router's runJS option as a function: a Runner's
// call (toolroute/jsrun), or the function given. where names the option's
// owner in its error.
export function runJSOf(runJS, where) {
  if (typeof runJS === "function" || runJS === undefined || runJS === null) return runJS;
  if (typeof runJS.call === "function") return (call) => runJS.call(call);
  throw new Error(`${where}: options.runJS must be a Runner (toolroute/jsrun) or a function running a JS tool's call`);
}

// warmOf gives a function that readies runJS once when it is a Runner
// (Runner.warm: QuickJS loaded before the first call needs it); it does
// nothing for a function.
export function warmOf(runJS) {
  if (typeof runJS === "function" || typeof runJS?.warm !== "function") return () => {};
  let warmed = false;
  return () => {
    if (warmed) return;
    warmed = true;
    runJS.warm();
  };
}

// hasJS tells whether a catalogue gives JS tools (manifests): only then is
// a runner worth readying.
export function hasJS(catalogue) {
  return Array.isArray(catalogue?.manifests) && catalogue.manifests.length > 0;
}

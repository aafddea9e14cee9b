// The token meter's arithmetic: what the next model call spends on tools,
// split into the parts a person can act on (the core tools, the group
// listing in the system prompt, each loaded group), against what sending
// every tool would cost, and each group's cost for the catalogue. Pure: the
// counter is given (o200k_base tokens, or UTF-8 bytes when none is loaded).

// splitArray cuts the text of a JSON array into the texts of its elements,
// exactly as they stand: the module's bytes, not a re-encoding.
export function splitArray(text) {
  const out = [];
  if (!text) return out;
  let depth = 0, start = -1, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      if (depth === 1 && start < 0) start = i;
    } else if (c === "{" || c === "[") {
      if (depth === 1 && start < 0) start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 1 && start >= 0) {
        out.push(text.slice(start, i + 1));
        start = -1;
      }
    } else if (c === "," && depth === 1) {
      if (start >= 0) out.push(text.slice(start, i).trim());
      start = -1;
    } else if (depth === 1 && start < 0 && !/\s/.test(c)) {
      start = i;
    }
  }
  return out;
}

// toolName is the name of one OpenAI tool definition's text.
function toolName(def) {
  try {
    return JSON.parse(def).function?.name ?? "";
  } catch {
    return "";
  }
}

// LISTING_HEADING starts the group listing the module puts in the system
// prompt.
const LISTING_HEADING = "## Available Tool Groups";

// listingOf is the group listing part of a system prompt: from its heading
// to the next heading, or the end.
export function listingOf(systemPrompt) {
  const s = String(systemPrompt ?? "");
  const at = s.indexOf(LISTING_HEADING);
  if (at < 0) return "";
  const next = s.indexOf("\n## ", at + LISTING_HEADING.length);
  return next < 0 ? s.slice(at) : s.slice(at, next);
}

// breakdown measures a describe result d (with tools_json) with count
// (async text -> number): {active, all, parts: [{kind: "core"|"listing"|
// "group", name, label, size}], groups: {name: size}}. active and all are
// counted whole, as `toolroute tokens` counts them; a group's part and
// groups are sums over each tool's definition. The parts add up to active
// and the listing, so that a meter's headline is the sum of its legend:
// every group with a tool in the call has a part (the loaded ones in their
// order, then those a search brought, by name), and the core tools' part
// is what is left of active, the array's brackets and commas with it.
// cache (text -> size) may be kept from one call to the next with the same
// count: a tool's definition is counted once.
export async function breakdown(d, count, cache = new Map()) {
  const measure = async (text) => {
    if (!cache.has(text)) cache.set(text, await count(text));
    return cache.get(text);
  };
  const groupOf = new Map((d.tools ?? []).map((t) => [t.name, t.group ?? ""]));
  const activeJSON = d.tools_json?.active ?? "";
  const allJSON = d.tools_json?.all ?? "";
  const perGroup = async (json) => {
    const sizes = new Map();
    for (const def of splitArray(json)) {
      const g = groupOf.get(toolName(def)) ?? "";
      sizes.set(g, (sizes.get(g) ?? 0) + (await measure(def)));
    }
    return sizes;
  };
  const active = await perGroup(activeJSON);
  const all = await perGroup(allJSON);
  const display = new Map((d.groups ?? []).map((g) => [g.name, g.display_name || g.name]));
  const activeSize = await measure(activeJSON);
  const core = { kind: "core", name: "", label: "Core tools", size: 0 };
  const parts = [core];
  const listing = listingOf(d.system_prompt);
  if (listing) parts.push({ kind: "listing", name: "", label: "Group listing", size: await measure(listing) });
  const loaded = d.loaded_groups ?? [];
  const brought = [...active.keys()].filter((g) => g && !loaded.includes(g)).sort();
  let inGroups = 0;
  for (const name of [...loaded, ...brought]) {
    if (!active.has(name)) continue;
    parts.push({ kind: "group", name, label: display.get(name) ?? name, size: active.get(name) });
    inGroups += active.get(name);
  }
  core.size = Math.max(0, activeSize - inGroups);
  const groups = {};
  for (const g of d.groups ?? []) groups[g.name] = all.get(g.name) ?? 0;
  return {
    active: activeSize,
    all: await measure(allJSON),
    parts,
    groups,
  };
}

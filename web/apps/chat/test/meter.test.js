// The token meter's arithmetic (web/apps/chat/meter.js): each tool's definition cut
// from the module's tools JSON as it stands, summed by group; the group
// listing cut from the system prompt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitArray, listingOf, breakdown } from "../src/meter.js";

const def = (name, description) => ({ type: "function", function: { name, description, parameters: { type: "object", properties: {} } } });

test("splitArray cuts a JSON array into its elements' texts, strings with brackets, commas and quotes included", () => {
  const items = [def("a", 'x, y [z] {w}'), def("b", 'q"}],'), def("c", "\\")];
  const text = JSON.stringify(items);
  const parts = splitArray(text);
  assert.deepEqual(parts, items.map((i) => JSON.stringify(i)));
  assert.deepEqual(splitArray(" [ " + parts.join(" , ") + " ] "), parts);
  assert.deepEqual(splitArray(""), []);
  assert.deepEqual(splitArray("[]"), []);
});

test("listingOf is the system prompt's group listing, up to the next heading", () => {
  const prompt = "Be brief.\n\n---\n\n## Available Tool Groups\n\nUse `load_tool_group`.\n\n- pdf: PDFs\n\n## Memories\n\n- tea";
  assert.equal(listingOf(prompt), "## Available Tool Groups\n\nUse `load_tool_group`.\n\n- pdf: PDFs\n");
  assert.equal(listingOf("no groups"), "");
});

test("breakdown splits the next call's tools into core, listing and each loaded group, with every group's cost", async () => {
  const core = def("get_time", "Time");
  const mail = [def("mail_read", "Read"), def("mail_send", "Send")];
  const pdf = def("pdf_info", "Info");
  const d = {
    system_prompt: "Hi\n\n## Available Tool Groups\n\n- mail: Mail\n- pdf: PDFs\n",
    tools: [{ name: "get_time" }, { name: "mail_read", group: "mail" }, { name: "mail_send", group: "mail" }, { name: "pdf_info", group: "pdf" }],
    groups: [{ name: "mail", display_name: "Mail" }, { name: "pdf", display_name: "PDF" }],
    loaded_groups: ["mail"],
    tools_json: { active: JSON.stringify([core, ...mail]), all: JSON.stringify([core, ...mail, pdf]) },
  };
  const len = async (t) => t.length;
  const b = await breakdown(d, len);
  const size = (x) => JSON.stringify(x).length;
  assert.equal(b.active, d.tools_json.active.length);
  assert.equal(b.all, d.tools_json.all.length);
  assert.deepEqual(b.parts, [
    // The core tools' part is what is left of the call's tools: their own
    // definition, and the array's brackets and commas.
    { kind: "core", name: "", label: "Core tools", size: size(core) + 4 },
    { kind: "listing", name: "", label: "Group listing", size: "## Available Tool Groups\n\n- mail: Mail\n- pdf: PDFs\n".length },
    { kind: "group", name: "mail", label: "Mail", size: size(mail[0]) + size(mail[1]) },
  ]);
  assert.deepEqual(b.groups, { mail: size(mail[0]) + size(mail[1]), pdf: size(pdf) });
  // The legend adds up to the headline: the call's tools and the listing.
  assert.equal(b.parts.reduce((sum, p) => sum + p.size, 0), b.active + b.parts[1].size);
});

test("breakdown gives a group a search brought a part of its own, so the parts still add up", async () => {
  const core = def("get_time", "Time");
  const pdf = def("pdf_info", "Info");
  const d = {
    tools: [{ name: "get_time" }, { name: "pdf_info", group: "pdf" }],
    groups: [{ name: "pdf", display_name: "PDF" }],
    loaded_groups: [],
    tools_json: { active: JSON.stringify([core, pdf]), all: JSON.stringify([core, pdf]) },
  };
  const b = await breakdown(d, async (t) => t.length);
  assert.deepEqual(b.parts, [
    { kind: "core", name: "", label: "Core tools", size: JSON.stringify(core).length + 3 },
    { kind: "group", name: "pdf", label: "PDF", size: JSON.stringify(pdf).length },
  ]);
  assert.equal(b.parts.reduce((sum, p) => sum + p.size, 0), b.active);
});

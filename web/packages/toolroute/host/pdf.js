// The pdf group in the JS hosts (the browser UI and the edge worker):
// pdf_info and pdf_extract_text as host-native tools on Mozilla's pdf.js,
// over the host's sandbox files and, through the fetch bridge's rules,
// URLs. The names, schemas and texts are assets/pdf_tools.json, which the Go
// program uses too; testdata/pdf/cases.json holds both to the same outputs.
//
// pdf_render_page is offered where there is a canvas to draw on: the
// page's Web Worker has OffscreenCanvas, and pdf.js draws there with the
// standard fonts and image decoders the page serves beside it
// (pdffont-FILE and pdfwasm-FILE, copied by build.mjs): a PDF need not
// embed Helvetica and its kin, and scans are often JPEG 2000 or JBIG2.
// workerd has no canvas, so the edge worker leaves the tool out. A host
// offers only the tools it can run (docs/design/builtin-tools.md).
//
// pdf.js is imported on the first call, in this thread: its "fake worker"
// runs the parser here, as a worker may start no other (workerd), and it
// never compiles code (isEvalSupported false), which workerd refuses.

import def from "../../../../assets/pdf_tools.json" with { type: "json" };
import { Sandbox, AccessDenied } from "../jsrun/sandbox.js";
import { fetchBytes } from "../jsrun/fetch.js";
import { toolOutput, MAX_RESULT_CHARS } from "./host.js";

// PDF_GROUP is the group's name.
export const PDF_GROUP = def.group.name;
// JS_TOOLS are the group's tools every JS host offers; RENDER_TOOL is
// offered where pdfGroup is given a canvas.
export const JS_TOOLS = ["pdf_info", "pdf_extract_text"];
export const RENDER_TOOL = "pdf_render_page";
// MAX_IMAGE_BYTES is the most bytes of one picture: the module keeps an
// image of at most 5 MiB of base64 (registry.MaxImageChars).
const MAX_IMAGE_BYTES = ((5 << 20) / 4) * 3;

// text fills in one of tools.json's texts.
function text(key, args = {}) {
  return def.errors[key].replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(args, k) ? String(args[k]) : m));
}

function fail(type, key, args) {
  return Object.assign(new Error(text(key, args)), { type });
}

let pdfjs = null;

// loadPdfjs imports pdf.js once, with its parser on this thread.
export function loadPdfjs() {
  pdfjs ??= (async () => {
    // pdf.js makes a DOMMatrix as it loads, for drawing; workerd has none,
    // and the text needs none.
    globalThis.DOMMatrix ??= class DOMMatrix {
      constructor() {
        Object.assign(this, { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 });
      }
    };
    globalThis.pdfjsWorker ??= await import("pdfjs-dist/legacy/build/pdf.worker.min.mjs");
    return import("pdfjs-dist/legacy/build/pdf.min.mjs");
  })().catch((e) => {
    pdfjs = null;
    throw e;
  });
  return pdfjs;
}

// pdfGroup gives the group as a catalogue takes it and its tools'
// functions. o:
//   files: () => the sandbox's store ({root, stat(rel), read(rel)}, as
//     web/packages/toolroute/jsrun/sandbox.js's), sync or async; none: paths are not found;
//   fetch: the fetch bridge's options for URLs ({fetch, cors,
//     allowPrivate, rewrites}); none: URLs are refused;
//   render: {canvas: (width, height) => an OffscreenCanvas, data: async
//     (kind, file) => the bytes of pdf.js's standard_fonts/FILE (kind
//     "font") or wasm/FILE (kind "wasm")}; none: no pdf_render_page.
export function pdfGroup(o = {}) {
  const offered = o.render ? [...JS_TOOLS, RENDER_TOOL] : JS_TOOLS;
  const tools = def.tools
    .filter((t) => offered.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, group: PDF_GROUP, parameters: t.parameters, required_permissions: t.required_permissions ?? [], timeout_seconds: t.timeout_seconds }));
  const native = {
    pdf_info: async (input, { signal, check } = {}) => info(await open(input, o, signal, check)),
    pdf_extract_text: async (input, { signal, check } = {}) => {
      const d = await open(input, o, signal, check);
      try {
        return await pagesText(d, input?.pages, signal);
      } finally {
        d.doc.destroy();
      }
    },
  };
  if (o.render) native.pdf_render_page = async (input, { signal, check } = {}) => render(input, o, signal, check);
  return { group: { ...def.group }, tools, native };
}

// withPdf adds the group to a catalogue, after its host groups.
export function withPdf(catalogue, group) {
  return { ...catalogue, groups: [...(catalogue?.groups ?? []), group.group], tools: [...(catalogue?.tools ?? []), ...group.tools] };
}

// open reads the call's PDF and parses it: {name, size, doc}.
async function open(input, o, signal, check) {
  const { name, data } = await source(input, o, signal, check);
  const size = data.length; // pdf.js takes the buffer over
  const lib = await loadPdfjs();
  let doc;
  try {
    doc = await lib.getDocument({ data, ...PARSE, ...(o.render ? drawing(o.render) : {}) }).promise;
  } catch (e) {
    if (e?.name === "PasswordException") throw fail("encrypted", "encrypted", { name });
    throw fail("damaged_pdf", "damaged", { name });
  }
  return { name, size, doc };
}

// PARSE are pdf.js's options for every document: no compiled code
// (workerd refuses it), no font faces or system fonts (glyphs are drawn
// from the fonts' outlines), nothing fetched but what is asked.
const PARSE = {
  isEvalSupported: false,
  disableFontFace: true,
  useSystemFonts: false,
  useWorkerFetch: false,
  isOffscreenCanvasSupported: false,
  disableAutoFetch: true,
  verbosity: 0,
};

// drawing gives pdf.js what drawing a page off the DOM takes: canvases,
// the standard fonts and the image decoders, from the host.
function drawing(r) {
  class CanvasFactory {
    create(width, height) {
      if (width <= 0 || height <= 0) throw new Error("Invalid canvas size");
      const canvas = r.canvas(width, height);
      return { canvas, context: canvas.getContext("2d", { willReadFrequently: true }) };
    }
    reset(cc, width, height) {
      if (width <= 0 || height <= 0) throw new Error("Invalid canvas size");
      cc.canvas.width = width;
      cc.canvas.height = height;
    }
    destroy(cc) {
      cc.canvas.width = 0;
      cc.canvas.height = 0;
      cc.canvas = null;
      cc.context = null;
    }
  }
  // Transfer maps and other SVG filters need a document; a page drawn
  // without them is still the page.
  class FilterFactory {
    addFilter() {
      return "none";
    }
    addHCMFilter() {
      return "none";
    }
    addAlphaFilter() {
      return "none";
    }
    addLuminosityFilter() {
      return "none";
    }
    addHighlightHCMFilter() {
      return "none";
    }
    destroy() {}
  }
  class BinaryDataFactory {
    async fetch({ kind, filename }) {
      if (kind === "standardFontDataUrl") return r.data("font", filename);
      if (kind === "wasmUrl") return r.data("wasm", filename);
      throw new Error(`this host has no ${kind} data`);
    }
  }
  return { CanvasFactory, FilterFactory, BinaryDataFactory };
}

// render draws one page as pdf_render_page answers it: a PNG whose long
// side is render_long_side pixels (a JPEG, then smaller, when the PNG is
// too large to send), as the Go host's pdftoppm does.
async function render(input, o, signal, check) {
  const raw = input?.page;
  let page = 1;
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1) throw fail("invalid_arguments", "bad_page");
    page = raw;
  }
  const d = await open(input, o, signal, check);
  try {
    const count = d.doc.numPages;
    if (page > count) throw fail("invalid_arguments", "out_of_range", { page, name: d.name, count });
    let p;
    try {
      p = await d.doc.getPage(page);
    } catch {
      throw fail("damaged_pdf", "damaged", { name: d.name });
    }
    let side = def.render_long_side;
    let mime = "image/png";
    for (let i = 0; ; i++) {
      signal?.throwIfAborted();
      const base = p.getViewport({ scale: 1 });
      const viewport = p.getViewport({ scale: side / Math.max(base.width, base.height) });
      const canvas = o.render.canvas(Math.max(1, Math.round(viewport.width)), Math.max(1, Math.round(viewport.height)));
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      try {
        await p.render({ canvas, canvasContext: ctx, viewport, background: "#fff" }).promise;
      } catch (e) {
        throw fail("execution_error", "not_rendered", { page, name: d.name, why: e?.message ?? e });
      }
      const blob = await canvas.convertToBlob(mime === "image/png" ? { type: mime } : { type: mime, quality: 0.85 });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      if (bytes.length <= MAX_IMAGE_BYTES) {
        const text = `Page ${page} of ${count} of ${d.name}, ${canvas.width} x ${canvas.height} px: [image ${mime}, ${bytes.length} bytes]`;
        return toolOutput(text, [{ mime_type: mime, data: base64(bytes) }]);
      }
      if (i === 3) throw fail("execution_error", "too_large_picture", { page, name: d.name, side });
      if (mime === "image/png") mime = "image/jpeg";
      else side = Math.floor((side * 2) / 3);
    }
  } finally {
    d.doc.destroy();
  }
}

function base64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

// source reads the call's PDF: {name, data}.
async function source(input, o, signal, check) {
  const path = typeof input?.path === "string" ? input.path.trim() : "";
  const url = typeof input?.url === "string" ? input.url.trim() : "";
  if (!path && !url) throw fail("invalid_arguments", "no_source");
  if (path && url) throw fail("invalid_arguments", "two_sources");
  const name = path || url;
  const data = path ? await readFile(path, o) : await readURL(url, o, signal, check);
  if (!isPDF(data)) throw fail("not_pdf", "not_pdf", { name });
  return { name, data };
}

// isPDF reports whether data has the PDF header in its first 1 KB, as the
// Go host asks.
function isPDF(data) {
  const head = data.subarray(0, 1024);
  for (let i = 0; i + 5 <= head.length; i++) {
    if (head[i] === 0x25 && head[i + 1] === 0x50 && head[i + 2] === 0x44 && head[i + 3] === 0x46 && head[i + 4] === 0x2d) return true;
  }
  return false;
}

// readFile reads a sandbox file by the fs bridge's path rules. The JS
// hosts keep what downloadToFile saves as bytes, and what write_file saves
// as text: text whose characters are all below U+0100 is read byte for
// byte (one character a byte), any other as its UTF-8.
async function readFile(path, o) {
  const store = o.files ? await o.files() : null;
  if (!store) throw fail("not_found", "not_found", { path });
  let rel;
  try {
    rel = new Sandbox(store).rel(path);
  } catch (e) {
    if (e instanceof AccessDenied) throw fail("access_denied", "outside", { path });
    throw Object.assign(new Error(e.message), { type: "invalid_arguments" });
  }
  const st = rel === "" ? { dir: true } : store.stat(rel);
  if (!st) throw fail("not_found", "not_found", { path });
  if (st.dir) throw fail("invalid_arguments", "folder", { path });
  if (st.size > def.max_bytes) throw fail("too_large", "too_large", { name: path, size: st.size, max: def.max_bytes });
  return bytesOf(store.read(rel));
}

export function bytesOf(s) {
  if (s instanceof Uint8Array) return s;
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) return new TextEncoder().encode(s);
    out[i] = c;
  }
  return out;
}

async function readURL(url, o, signal, check) {
  if (!o.fetch) throw fail("fetch_error", "no_urls", { url });
  let r;
  try {
    r = await fetchBytes(url, { method: "GET", headers: { Accept: "application/pdf,*/*" } }, { ...o.fetch, maxBody: def.max_bytes, timeoutMs: 55_000, signal, check });
  } catch (e) {
    throw Object.assign(new Error(String(e?.message ?? e).replace(/^fetch: /, "fetching ")), { type: "fetch_error" });
  }
  if (r.status < 200 || r.status > 299) throw fail("fetch_error", "fetch_status", { url, status: r.status });
  if (r.data.length > def.max_bytes) throw fail("too_large", "too_large", { name: url, size: r.data.length, max: def.max_bytes });
  return r.data;
}

// INFO_FIELDS are the Info entries pdf_info shows, in order.
const INFO_FIELDS = [
  ["Title", "Title"], ["Author", "Author"], ["Subject", "Subject"], ["Keywords", "Keywords"],
  ["Creator", "Creator"], ["Producer", "Producer"], ["CreationDate", "Created", true], ["ModDate", "Modified", true],
];

// info writes pdf_info's lines, as internal/pdf/info.go does.
async function info(d) {
  try {
    const { info: meta } = await d.doc.getMetadata();
    const n = d.doc.numPages;
    const lines = [`File: ${d.name}`, `Pages: ${n}`, `PDF version: ${meta?.PDFFormatVersion ?? "?"}`, `Size: ${d.size} bytes`];
    for (const [key, label, date] of INFO_FIELDS) {
      let v = meta?.[key];
      if (typeof v !== "string") continue;
      if (date) v = pdfDate(v);
      v = v.trim();
      if (v) lines.push(`${label}: ${v}`);
    }
    if (meta?.EncryptFilterName) lines.push(text("encrypted_line"));
    const sizes = [];
    for (let p = 1; p <= Math.min(n, def.info_max_pages); p++) {
      const page = await d.doc.getPage(p);
      const [x1, y1, x2, y2] = page.view;
      let w = Math.abs(x2 - x1), h = Math.abs(y2 - y1);
      if ((((page.rotate % 360) + 360) % 180) === 90) [w, h] = [h, w];
      sizes.push([w, h]);
    }
    lines.push(...sizeLines(sizes, n));
    return lines.join("\n");
  } finally {
    d.doc.destroy();
  }
}

function sizeLines(sizes, count) {
  const runs = [];
  sizes.forEach(([w, h], i) => {
    const last = runs[runs.length - 1];
    if (last && last.w === w && last.h === h) last.last = i + 1;
    else runs.push({ w, h, first: i + 1, last: i + 1 });
  });
  if (runs.length === 1 && sizes.length === count) return [`Page size: ${sizeText(runs[0])}`];
  const out = [sizes.length < count ? `Page sizes (the first ${sizes.length} pages):` : "Page sizes:"];
  for (const r of runs) out.push(`- ${r.first === r.last ? `page ${r.first}` : `pages ${r.first}-${r.last}`}: ${sizeText(r)}`);
  return out;
}

function sizeText({ w, h }) {
  return `${num(w)} x ${num(h)} pt (${num(w / 72)} x ${num(h / 72)} in)`;
}

// num writes at most two decimals, trailing zeros dropped (Go's num).
function num(f) {
  const s = f.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}

// pdfDate writes a PDF date as ISO 8601 (internal/pdf/info.go's pdfDate).
export function pdfDate(s) {
  const raw = s.trim();
  const d = raw.startsWith("D:") ? raw.slice(2) : raw;
  let digits = 0;
  while (digits < d.length && digits < 14 && d[digits] >= "0" && d[digits] <= "9") digits++;
  if (digits < 4 || digits % 2 !== 0) return raw;
  const parts = ["01", "01", "00", "00", "00"];
  for (let i = 0; 4 + 2 * i < digits; i++) parts[i] = d.slice(4 + 2 * i, 6 + 2 * i);
  const out = `${d.slice(0, 4)}-${parts[0]}-${parts[1]}T${parts[2]}:${parts[3]}:${parts[4]}`;
  const rest = d.slice(digits);
  if (rest === "") return out;
  if (rest.startsWith("Z")) return out + "Z";
  if (rest[0] === "+" || rest[0] === "-") {
    const tz = rest.slice(1).replaceAll("'", "");
    if (/^\d\d/.test(tz)) return `${out}${rest[0]}${tz.slice(0, 2)}:${/^\d\d/.test(tz.slice(2, 4)) ? tz.slice(2, 4) : "00"}`;
  }
  return out;
}

// parsePages reads pages ("2", "1-3", "1,4-6"; all when empty) as
// internal/pdf/text.go's parsePages does.
export function parsePages(spec, count, name) {
  spec = typeof spec === "string" ? spec.trim() : spec === undefined || spec === null ? "" : String(spec);
  if (spec === "" || spec.toLowerCase() === "all") return Array.from({ length: count }, (_, i) => i + 1);
  const bad = () => fail("invalid_arguments", "bad_pages", { pages: spec });
  const seen = new Set();
  const out = [];
  for (let part of spec.split(",")) {
    part = part.trim();
    const dash = part.indexOf("-");
    const lo = dash < 0 ? part : part.slice(0, dash);
    const first = whole(lo.trim());
    if (first === null || first < 1) throw bad();
    let last = first;
    if (dash >= 0) {
      last = whole(part.slice(dash + 1).trim());
      if (last === null || last < first) throw bad();
    }
    if (last > count) throw fail("invalid_arguments", "out_of_range", { page: Math.max(first, count + 1), name, count });
    for (let p = first; p <= last; p++) {
      if (!seen.has(p)) {
        seen.add(p);
        out.push(p);
      }
    }
  }
  return out;
}

// whole reads a decimal whole number as Go's strconv.Atoi does, or null.
function whole(s) {
  return /^[+-]?\d+$/.test(s) ? Number(s) : null;
}

function rangesText(pages) {
  const parts = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j] + 1) j++;
    parts.push(j === i ? String(pages[i]) : `${pages[i]}-${pages[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

// pagesText writes pdf_extract_text's answer, as internal/pdf/text.go does.
async function pagesText(d, spec, signal) {
  const n = d.doc.numPages;
  const pages = parsePages(spec, n, d.name);
  let out = "";
  let chars = 0;
  for (let i = 0; i < pages.length; i++) {
    signal?.throwIfAborted();
    const p = pages[i];
    let body;
    try {
      body = pageText(await (await d.doc.getPage(p)).getTextContent());
    } catch {
      throw fail("damaged_pdf", "damaged", { name: d.name });
    }
    let part = `[Page ${p} of ${n}]\n${body || text("no_text")}`;
    if (i > 0) part = "\n\n" + part;
    const len = [...part].length;
    if (i > 0 && chars + len > MAX_RESULT_CHARS - 200) {
      out += "\n\n" + text("cut", { next: p, max: MAX_RESULT_CHARS, rest: rangesText(pages.slice(i)) });
      break;
    }
    out += part;
    chars += len;
  }
  return out;
}

// pageText joins pdf.js's text items: a line ends where pdf.js says one
// does (hasEOL), then tidy as the Go host does.
function pageText(content) {
  let s = "";
  for (const it of content.items) {
    if (typeof it.str !== "string") continue; // marked content
    s += it.str;
    if (it.hasEOL) s += "\n";
  }
  return tidy(s);
}

function tidy(s) {
  const out = [];
  let blank = false;
  for (let l of s.split("\n")) {
    l = l.replace(/[ \t\r\u00a0]+$/, "");
    if (l === "") {
      if (!blank && out.length > 0) out.push("");
      blank = true;
      continue;
    }
    blank = false;
    out.push(l);
  }
  return out.join("\n").trim();
}

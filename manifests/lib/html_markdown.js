// html_markdown: an HTML page made readable for a model, without a DOM, in
// QuickJS in every host (webfetch uses it). The main content (the page's
// <main> or <article> when it has one, else its <body>) as markdown, with
// headings, paragraphs, lists, links, code, quotes and tables, and without
// scripts, styles, navigation, forms or other page furniture.
//
//   const { markdown } = lib("html_markdown");
//   const page = markdown(html, "https://example.com/docs/");  // {title, markdown, read}
//
// The parsing is htmlparser2's (lib("htmlparser2")), which closes what a
// page leaves open as browsers do; the tree and the writing are ours.

const { Parser, decodeHTML, decodeHTMLAttribute } = lib("htmlparser2");

// SKIPPED are elements whose content a reader does not want. The title is
// the page's, given apart.
const SKIPPED = new Set([
  "script", "style", "noscript", "template", "svg", "iframe", "nav", "form", "button", "select",
  "input", "textarea", "aside", "head", "title", "canvas", "object", "embed", "dialog",
]);

// BLOCKS start on a new paragraph.
const BLOCKS = new Set([
  "p", "div", "section", "article", "main", "header", "footer", "figure", "figcaption", "details",
  "summary", "dl", "dt", "dd", "address", "center",
]);

const HEADINGS = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

// MAX_DEPTH bounds the tree's nesting: elements opened deeper are read as
// part of the one holding them, so a page of endless open tags cannot
// overflow the stack. The writer takes up to four calls a level (an
// inline element's text is written apart), and the edge worker's stack
// holds about 1,650 plain calls.
const MAX_DEPTH = 128;

// DROPPED are the comments, scripts and styles of a page, whose content is
// never shown: one native regular expression takes them out before the
// parser, which goes a character at a time, slowly in QuickJS. A script or
// style ends at its first end tag, as HTML says; an unclosed one is left to
// the parser.
const DROPPED = /<!--(?:>|->|[\s\S]*?-->)|<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

// NONE is the attributes of an element without any the writer reads.
const NONE = Object.freeze({});

// kept gives the attributes the writer reads, of those an element has: the
// tree holds no others, which saves memory on a big page.
function kept(a) {
  if (a.href === undefined && a.src === undefined && a.alt === undefined && a.hidden === undefined &&
    a["aria-hidden"] === undefined && a.style === undefined) return NONE;
  return { href: a.href, src: a.src, alt: a.alt, hidden: a.hidden, "aria-hidden": a["aria-hidden"], style: a.style };
}

// CHUNK is how much of the page the parser reads between two looks at the
// clock.
const CHUNK = 64 << 10;

// parse builds the page's tree: elements {name, attribs, children} whose
// children are elements and texts (strings, as the page has them: decoded
// when written), under a root element named "". It reads the page, less
// its comments, scripts and styles, up to maxChars characters of it and
// until the time deadline (a Date.now() value), each when set, and gives
// {root, read, length}: how many characters it read of how many.
//
// The parser does not decode character references, which lets it skip
// through a text or an attribute value without stopping at each "&":
// entities' decoder (a text with no "&" costs one indexOf) decodes each
// text as it is written, and attr the values read.
function parse(html, maxChars, deadline) {
  const root = { name: "", attribs: NONE, children: [] };
  const open = [root]; // the elements open, innermost last
  let cur = root;
  // skip counts the elements open inside a skipped one (navigation, a
  // form, an svg): the tree keeps the skipped element alone, which saves
  // memory on a big page. deep counts those open past MAX_DEPTH, whose
  // texts go to the element holding them. One of the two is 0.
  let skip = 0, deep = 0;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (skip > 0) {
        skip++;
        return;
      }
      if (open.length > MAX_DEPTH) {
        deep++;
        return;
      }
      const el = { name, attribs: kept(attribs), children: [] };
      cur.children.push(el);
      if (SKIPPED.has(name) && name !== "head" && name !== "title") {
        skip = 1;
        return;
      }
      open.push(el);
      cur = el;
    },
    // htmlparser2 closes elements innermost first, those it closes for a
    // page included, so the deepest open element is the one closed.
    onclosetag() {
      if (skip > 0) skip--;
      else if (deep > 0) deep--;
      else if (open.length > 1) {
        open.pop();
        cur = open[open.length - 1];
      }
    },
    // A text comes in parts where a chunk ends: they are joined, so a
    // character reference split between two is whole again.
    ontext(text) {
      if (skip > 0) return;
      const last = cur.children.length - 1;
      if (last >= 0 && typeof cur.children[last] === "string") cur.children[last] += text;
      else cur.children.push(text);
    },
  }, { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true });
  html = html.replace(DROPPED, "");
  const end = maxChars > 0 ? Math.min(html.length, maxChars) : html.length;
  let read = 0;
  while (read < end && !(deadline > 0 && Date.now() >= deadline)) {
    parser.write(html.slice(read, Math.min(end, read + CHUNK)));
    read = Math.min(end, read + CHUNK);
  }
  parser.end();
  return { root, read, length: html.length };
}

// find returns the first element named name, depth first, outside svg and
// math (whose title names a drawing, not the page).
function find(n, name) {
  if (n.name === name) return n;
  if (n.name === "svg" || n.name === "math") return null;
  for (const c of n.children) {
    const f = typeof c === "string" ? null : find(c, name);
    if (f !== null) return f;
  }
  return null;
}

function textOf(n) {
  if (typeof n === "string") return decodeHTML(n);
  return n.children.map(textOf).join("");
}

// collapse trims s and makes each run of whitespace one space. It is
// native string work: in QuickJS every turn of a JS loop costs (the host's
// interrupt poll reads the clock), so hot paths here avoid loops per word
// or character.
function collapse(s) {
  return s.replace(/\s+/g, " ").trim();
}

// attr is an element's attribute value, decoded, or "".
function attr(n, name) {
  const v = n.attribs[name];
  return v === undefined ? "" : decodeHTMLAttribute(v);
}

const isSpace = (ch) => ch === " " || ch === "\n" || ch === "\t" || ch === "\r";

// hidden reports elements marked hidden: the hidden attribute,
// aria-hidden="true", or an inline display:none.
function hidden(n) {
  const a = n.attribs;
  if (a.hidden !== undefined || (a["aria-hidden"] !== undefined && attr(n, "aria-hidden") === "true")) return true;
  return a.style !== undefined && attr(n, "style").toLowerCase().replace(/ /g, "").includes("display:none");
}

// Text is a string built in parts, which QuickJS joins once: appending to
// one string copies it each time, which on a long page takes minutes.
class Text {
  constructor() {
    this.reset();
  }
  reset() {
    this.parts = [];
    this.length = 0;
  }
  add(s) {
    if (s === "") return;
    this.parts.push(s);
    this.length += s.length;
  }
  last() {
    const p = this.parts[this.parts.length - 1];
    return p === undefined ? "" : p[p.length - 1];
  }
  toString() {
    if (this.parts.length > 1) this.parts = [this.parts.join("")];
    return this.parts[0] ?? "";
  }
}

// Writer builds the markdown: paragraphs separated by blank lines, inline
// text with whitespace collapsed.
class Writer {
  constructor(base, pre) {
    this.base = base;
    this.out = new Text();
    this.line = new Text(); // the paragraph being built
    this.prefix = ""; // starts the paragraph: quote marks, list marker
    this.quote = ""; // "> " per open blockquote
    this.lists = []; // {ordered, n}
    this.pre = pre;
  }

  // flush ends the paragraph being built.
  flush() {
    const s = this.line.toString().trim();
    this.line.reset();
    if (s === "") return;
    if (this.out.length > 0) this.out.add("\n\n");
    this.out.add(this.prefix + s);
  }

  raw(s) {
    this.flush();
    if (this.out.length > 0) this.out.add("\n\n");
    this.out.add(s);
  }

  result() {
    this.flush();
    return this.out.toString().trim();
  }

  // inline adds text to the paragraph, collapsing whitespace.
  inline(s) {
    if (this.pre > 0) {
      this.line.add(s);
      return;
    }
    if (s === "") return;
    const lead = isSpace(s[0]);
    const trail = isSpace(s[s.length - 1]);
    s = collapse(s);
    if (lead && this.line.length > 0 && this.line.last() !== " ") this.line.add(" ");
    this.line.add(s);
    if (trail && s !== "") this.line.add(" ");
  }

  children(n) {
    for (const c of n.children) this.node(c);
  }

  node(n) {
    if (typeof n === "string") {
      this.inline(decodeHTML(n));
      return;
    }
    if (n.name === "") {
      this.children(n);
      return;
    }
    if (SKIPPED.has(n.name) || hidden(n)) return;
    const name = n.name;
    if (HEADINGS[name] !== undefined) {
      this.flush();
      const s = collapse(this.inlineText(n));
      if (s !== "") this.raw("#".repeat(HEADINGS[name]) + " " + s);
    } else if (BLOCKS.has(name)) {
      this.flush();
      this.children(n);
      this.flush();
    } else if (name === "br") {
      if (this.pre > 0) this.line.add("\n");
      else this.flush();
    } else if (name === "hr") {
      this.raw("---");
    } else if (name === "pre") {
      this.flush();
      this.pre++;
      this.children(n);
      this.pre--;
      const code = this.line.toString().replace(/^\n+|\n+$/g, "");
      this.line.reset();
      if (code !== "") this.raw("```\n" + code + "\n```");
    } else if (name === "code" && this.pre === 0) {
      const s = this.inlineText(n).trim();
      if (s !== "") this.inline("`" + s + "`");
    } else if (name === "strong" || name === "b") {
      this.wrap(n, "**");
    } else if (name === "em" || name === "i") {
      this.wrap(n, "*");
    } else if (name === "a") {
      const label = collapse(this.inlineText(n));
      const href = attr(n, "href").trim();
      if (label === "") {
        // nothing to show
      } else if (href === "" || href.startsWith("javascript:") || href.startsWith("#")) {
        this.inline(label);
      } else {
        this.inline("[" + label + "](" + resolve(this.base, href) + ")");
      }
    } else if (name === "img") {
      const alt = collapse(attr(n, "alt"));
      if (alt !== "") this.inline("![" + alt + "](" + resolve(this.base, attr(n, "src")) + ")");
    } else if (name === "ul" || name === "ol") {
      this.flush();
      this.lists.push({ ordered: name === "ol", n: 0 });
      this.children(n);
      this.flush();
      this.lists.pop();
    } else if (name === "li") {
      this.flush();
      let marker = "- ";
      const l = this.lists[this.lists.length - 1];
      if (l !== undefined) {
        l.n++;
        if (l.ordered) marker = l.n + ". ";
      }
      const indent = "  ".repeat(Math.max(0, this.lists.length - 1));
      const saved = this.prefix;
      this.prefix = this.quote + indent + marker;
      this.children(n);
      this.flush();
      this.prefix = saved;
    } else if (name === "blockquote") {
      this.flush();
      const savedPrefix = this.prefix, savedQuote = this.quote;
      this.quote += "> ";
      this.prefix = this.quote;
      this.children(n);
      this.flush();
      this.prefix = savedPrefix;
      this.quote = savedQuote;
    } else if (name === "table") {
      this.table(n);
    } else {
      this.children(n);
    }
  }

  // wrap writes an element's text between marks, such as ** for bold.
  wrap(n, mark) {
    const s = collapse(this.inlineText(n));
    if (s !== "") this.inline(mark + s + mark);
  }

  // inlineText renders an element's inline content on its own.
  inlineText(n) {
    const sub = new Writer(this.base, this.pre);
    sub.children(n);
    return sub.line.toString() + sub.out.toString();
  }

  table(n) {
    const rows = [];
    const walk = (n) => {
      for (const c of n.children) {
        if (typeof c === "string" || SKIPPED.has(c.name)) continue;
        if (c.name === "tr") {
          const cells = [];
          for (const d of c.children) {
            if (d.name === "td" || d.name === "th") cells.push(collapse(this.inlineText(d)).replace(/\|/g, "\\|"));
          }
          if (cells.length > 0) rows.push(cells);
          continue;
        }
        walk(c);
      }
    };
    walk(n);
    if (rows.length === 0) return;
    const lines = rows.map((r, i) => "| " + r.join(" | ") + " |" + (i === 0 ? "\n|" + " --- |".repeat(r.length) : ""));
    this.raw(lines.join("\n"));
  }
}

// URL is RFC 3986's split of a URI reference: scheme, authority (undefined
// when there is none), path, query and fragment (undefined when absent).
const URL_RE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function split(s) {
  const m = URL_RE.exec(s);
  return { scheme: m[1], authority: m[2], path: m[3], query: m[4], fragment: m[5] };
}

// removeDots is RFC 3986's remove_dot_segments.
function removeDots(path) {
  const out = [];
  const segs = path.split("/");
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    const last = i === segs.length - 1;
    if (s === ".") {
      if (last) out.push("");
    } else if (s === "..") {
      if (out.length > 1 || (out.length === 1 && out[0] !== "")) out.pop();
      if (last) out.push("");
    } else {
      out.push(s);
    }
  }
  return out.join("/");
}

// escape percent-encodes what may not stand in a URL as written (spaces,
// quotes, angle brackets, characters beyond ASCII), keeping every %XX, as
// a browser writes a link it follows. A lone surrogate is U+FFFD.
function escape(s) {
  return s.replace(/%(?![0-9A-Fa-f]{2})|[^\x21-\x7e]|["<>`{}|\\^]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return "%EF%BF%BD";
    }
  });
}

// resolve makes ref absolute against the URL base (RFC 3986, section 5.2),
// or gives it as it is without a base.
function resolve(base, ref) {
  ref = ref.replace(/[\t\n\r]/g, "").trim();
  if (ref === "" || !base) return ref;
  const r = split(ref);
  if (r.scheme !== undefined && !/^[a-zA-Z][a-zA-Z0-9+.-]*$/.test(r.scheme)) return ref;
  const b = split(base);
  let t;
  if (r.scheme !== undefined) {
    t = { scheme: r.scheme.toLowerCase(), authority: r.authority, path: removeDots(r.path), query: r.query };
  } else if (r.authority !== undefined) {
    t = { scheme: b.scheme, authority: r.authority, path: removeDots(r.path), query: r.query };
  } else if (r.path === "") {
    t = { scheme: b.scheme, authority: b.authority, path: b.path, query: r.query !== undefined ? r.query : b.query };
  } else {
    let path = r.path;
    if (!path.startsWith("/")) {
      path = b.authority !== undefined && b.path === "" ? "/" + path : b.path.slice(0, b.path.lastIndexOf("/") + 1) + path;
    }
    t = { scheme: b.scheme, authority: b.authority, path: removeDots(path), query: r.query };
  }
  let out = t.scheme + ":";
  if (t.authority !== undefined) out += "//" + t.authority;
  out += escape(t.path);
  if (t.query !== undefined) out += "?" + escape(t.query);
  if (r.fragment !== undefined) out += "#" + escape(r.fragment);
  return out;
}

// markdown reads an HTML document; base, the page's URL, resolves relative
// links (without one they stay as they are). It gives {title, markdown,
// read}: read is the share of the page read, 1 unless options.maxChars (of
// the page without its comments, scripts and styles) or options.deadline
// (a Date.now() value) came first, when the rest is left out. A page takes
// QuickJS seconds a megabyte, and its tree memory: a tool sets both.
function markdown(html, base, options) {
  const { root, read, length } = parse(String(html), options?.maxChars, options?.deadline);
  const t = find(root, "title");
  const content = find(root, "main") ?? find(root, "article") ?? find(root, "body") ?? root;
  const w = new Writer(base ? String(base) : "", 0);
  w.node(content);
  return { title: t === null ? "" : collapse(textOf(t)), markdown: w.result(), read: length === 0 ? 1 : read / length };
}

module.exports = { markdown, resolve };

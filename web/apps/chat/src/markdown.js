// Markdown as the model writes it, made safe to show: marked renders it,
// DOMPurify keeps only harmless HTML (no scripts, handlers, forms or
// javascript: links), links open in a new tab without the page's opener,
// code is highlighted by highlight.js (a few common languages; code whose
// fence names none stays plain text, as guessing took prose for SQL) and
// gets its language's name and a copy button.
import { marked } from "marked";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, css, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const name of Object.keys(LANGUAGES).sort()) hljs.registerLanguage(name, LANGUAGES[name]);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "mjs", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["golang"], { languageName: "go" });

marked.use({ gfm: true, breaks: false });

// SAFE_URL is what a link or image may point at.
const SAFE_URL = /^(https?:|mailto:|#)/i;

// render turns markdown into a sanitised element's children, in el.
export function render(el, text) {
  const html = marked.parse(String(text ?? ""), { async: false });
  const clean = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style"],
    RETURN_DOM_FRAGMENT: true,
  });
  for (const a of clean.querySelectorAll("a")) {
    const href = a.getAttribute("href") ?? "";
    if (!SAFE_URL.test(href)) {
      a.removeAttribute("href");
      continue;
    }
    if (!href.startsWith("#")) {
      a.target = "_blank";
      a.rel = "noopener noreferrer nofollow";
    }
  }
  for (const img of clean.querySelectorAll("img")) {
    // A picture the model links to is fetched from the web: shown only as
    // its link, so a reply cannot make the page call out on its own.
    const src = img.getAttribute("src") ?? "";
    const alt = img.getAttribute("alt") ?? "";
    if (!/^https?:/i.test(src)) {
      img.replaceWith(document.createTextNode(alt));
      continue;
    }
    const a = document.createElement("a");
    a.textContent = alt || src;
    a.href = src;
    a.target = "_blank";
    a.rel = "noopener noreferrer nofollow";
    img.replaceWith(a);
  }
  for (const code of clean.querySelectorAll("pre > code")) highlight(code);
  el.replaceChildren(clean);
}

function highlight(code) {
  const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className)?.[1]?.toLowerCase();
  const text = code.textContent;
  try {
    const r = lang && hljs.getLanguage(lang) ? hljs.highlight(text, { language: lang, ignoreIllegals: true }) : null;
    if (r) {
      // highlight.js escapes the code it returns as HTML: spans only.
      code.innerHTML = DOMPurify.sanitize(r.value, { ALLOWED_TAGS: ["span"], ALLOWED_ATTR: ["class"] });
      code.classList.add("hljs");
    }
  } catch {
    // Left as plain text.
  }
  const pre = code.parentElement;
  const tools = document.createElement("div");
  tools.className = "code-tools";
  const name = document.createElement("span");
  name.className = "lang";
  name.textContent = lang ?? "text";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "copy";
  // Its name holds what it shows: "Copy the code", then "Copied the code".
  const show = (word) => {
    copy.textContent = word;
    copy.setAttribute("aria-label", `${word} the code`);
  };
  show("Copy");
  copy.onclick = async () => {
    try {
      await navigator.clipboard.writeText(text);
      show("Copied");
    } catch {
      show("Could not copy");
    }
    setTimeout(() => show("Copy"), 1500);
  };
  tools.append(name, copy);
  pre.append(tools);
}

// webfetch: a web page as readable markdown, through the fetch bridge and
// html_markdown (htmlparser2 under it), the same in every host:
//
//   # Title
//   URL: the page's URL after redirects
//
//   the markdown, cut at max_chars with a note saying so
//
// Text, JSON and XML pages come as they are. What fails is an error with a
// type: invalid_arguments, refused (a loopback, private or link-local
// address), http_error (not 2xx), unsupported (not a text page).

// MAX_PAGE_CHARS is the default cut of the markdown.
const MAX_PAGE_CHARS = 20000;
// MAX_PAGE_BYTES is how much of a page is fetched: the bridge's most.
const MAX_PAGE_BYTES = 5 << 20;
// READ_CHARS and READ_MS bound the HTML read, less its scripts, styles and
// comments, so that a call ends within its 30 s, the fetch included, and
// its 64 MB: QuickJS reads a megabyte of dense HTML in about 7 s here (it
// polls the host's clock at every turn of a loop, a character at a time),
// writing the markdown takes a third more, and the tree of 2 MB nears the
// memory limit. Most pages are far smaller without their scripts.
const READ_CHARS = 1536 << 10;
const READ_MS = 12000;

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5";

function fail(type, message) {
  return Object.assign(new Error(message), { type });
}

// checkURL refuses what is not a full http or https URL, before any
// request, as the bridge would.
function checkURL(raw) {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(raw);
  if (m === null || m[2] === "") throw fail("invalid_arguments", `invalid URL '${raw}': give a full http:// or https:// URL`);
  const scheme = m[1].toLowerCase();
  if (scheme !== "http" && scheme !== "https") throw fail("invalid_arguments", `'${raw}' is not an http or https URL`);
  if (m[2].includes("@")) {
    throw fail("invalid_arguments", "the URL has a user name or password before '@', which is refused: give the host right after '//'");
  }
}

// codePoints counts the characters of s, a pair of surrogates being one.
function codePoints(s) {
  return s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g) || []).length;
}

// mediaType is a Content-Type's type and subtype, lower case.
function mediaType(contentType) {
  return (contentType || "").split(";")[0].trim().toLowerCase();
}

function isText(mt) {
  return mt.startsWith("text/") || mt === "application/json" || mt.endsWith("+json") || mt.endsWith("+xml") || mt === "application/xml";
}

async function execute(params) {
  const start = Date.now();
  const raw = params.url;
  if (typeof raw !== "string") throw fail("invalid_arguments", "url must be a string: the page's full URL, starting with http:// or https://");
  let maxChars = params.max_chars;
  if (maxChars !== undefined && maxChars !== null && !Number.isInteger(maxChars)) {
    throw fail("invalid_arguments", "max_chars must be a whole number of characters, such as 20000");
  }
  if (!(maxChars > 0)) maxChars = MAX_PAGE_CHARS;
  checkURL(raw);

  let resp;
  try {
    resp = await fetch(raw, { headers: { "User-Agent": "toolroute webfetch", Accept: ACCEPT }, maxBytes: MAX_PAGE_BYTES });
  } catch (e) {
    const message = String(e && e.message).replace(/^fetch: /, "");
    // Every host's bridge says so, in these words (testdata/js's
    // fetch_refuses_private).
    if (message.includes(" is refused: loopback, private and link-local addresses")) {
      throw fail("refused", `${raw} is refused: loopback, private and link-local addresses cannot be fetched`);
    }
    throw fail("execution_error", message);
  }
  if (!resp.ok) throw fail("http_error", `${raw} answered ${(resp.status + " " + resp.statusText).trim()}`);

  const mt = mediaType(resp.headers["content-type"]);
  const body = await resp.text();
  let title = "", text, read = 1;
  if (mt === "text/html" || mt === "application/xhtml+xml" || mt === "") {
    const page = lib("html_markdown").markdown(body, resp.url, { maxChars: READ_CHARS, deadline: start + READ_MS });
    title = page.title;
    text = page.markdown;
    read = page.read;
  } else if (isText(mt)) {
    text = body;
  } else {
    throw fail("unsupported", `${raw} is ${mt}, not a text page`);
  }

  const out = (title !== "" ? "# " + title + "\n" : "") + "URL: " + resp.url + "\n\n";
  const n = codePoints(text);
  if (n > maxChars) {
    text = new RegExp("^[^]{" + maxChars + "}", "u").exec(text)[0] + `\n\n[cut at ${maxChars} of ${n} characters: ask for more with max_chars]`;
  }
  if (read < 1) {
    text += `\n\n[only the first ${Math.floor(read * 100)}% of the page was read: it is too long to read whole here]`;
  }
  return out + text;
}

// downloadToFile's and uploadMultipart's host side, the Go host's
// (host/jsrun/transfer.go): requests through fetch's send (its guard,
// rewrites and timeout), files through the sandbox's rules, bytes as they
// are. Their failures are answers, never throws, as the prelude gives them.
import { send, readAtMost, statusText, DEFAULT_MAX_BODY } from "./fetch.js";
import { cutNote, passes, refusal, word } from "./words.js";
import { MAX_TRANSFER_BYTES } from "./sandbox.js";

// MAX_ERROR_BODY bounds the part of an error response a failed download
// quotes.
const MAX_ERROR_BODY = 1 << 10;

const encoder = new TextEncoder();

// download GETs req.url ({url, path, headers}) into a file of the sandbox
// and gives {success, path, size, error, status}: the file is written only
// when the whole body came, with a 2xx status, within MAX_TRANSFER_BYTES.
export async function download(req, o, sandbox) {
  const res = { success: false, path: req.path, size: 0, error: null, status: 0 };
  const fail = (error) => ({ ...res, error });
  let rel;
  try {
    rel = sandbox.rel(req.path);
  } catch (e) {
    return fail(`downloadToFile: ${word(o.check, e).message.replace(/^fs: /, "")}`);
  }
  if (rel === "") return fail(`downloadToFile: '${req.path}' is the sandbox folder: give a file's path, such as 'downloads/report.pdf'`);
  let r;
  try {
    r = await send("downloadToFile", req.url, { method: "GET", headers: req.headers }, o);
  } catch (e) {
    return fail(e.message);
  }
  const { resp, signal } = r;
  res.status = resp.status;
  if (resp.status < 200 || resp.status > 299) {
    let t = "";
    try {
      t = new TextDecoder().decode(await readAtMost(resp, MAX_ERROR_BODY)).trim();
    } catch {
      // the status says enough
    }
    return fail(`downloadToFile: ${req.url} answered HTTP ${resp.status} ${statusText(resp)}${t ? ": " + t : ""}`);
  }
  const tooBig = () => fail(`downloadToFile: ${req.url} is over ${MAX_TRANSFER_BYTES} bytes (5 MB), the most a download saves: nothing was written`);
  if (Number(resp.headers.get("content-length")) > MAX_TRANSFER_BYTES) {
    await resp.body?.cancel().catch(() => {});
    return tooBig();
  }
  let data;
  try {
    data = await readAtMost(resp, MAX_TRANSFER_BYTES + 1);
  } catch (e) {
    if (signal.aborted) return fail(`downloadToFile: ${req.url} timed out: nothing was written`);
    return fail(`downloadToFile: reading ${req.url}: ${e.message}: nothing was written`);
  }
  if (data.length > MAX_TRANSFER_BYTES) return tooBig();
  try {
    sandbox.writeBytes(req.path, data);
  } catch (e) {
    return fail(`downloadToFile: ${word(o.check, e).message.replace(/^fs: /, "")}`);
  }
  return { ...res, success: true, size: data.length };
}

// upload POSTs req's parts ({url, headers, contentType, formData, parts})
// as one multipart body and gives {status, body, ok, error}.
export async function upload(req, o, sandbox) {
  const res = { status: 0, body: "", ok: false, error: null };
  const fail = (error) => ({ ...res, error });
  let body, headers;
  try {
    ({ body, headers } = multipart(req, sandbox, o.check));
  } catch (e) {
    return fail(`uploadMultipart: ${e.message}`);
  }
  let resp;
  try {
    ({ resp } = await send("uploadMultipart", req.url, { method: "POST", headers, body }, o));
  } catch (e) {
    return fail(e.message);
  }
  res.status = resp.status;
  res.ok = resp.status >= 200 && resp.status <= 299;
  const maxBody = o.maxBody ?? DEFAULT_MAX_BODY;
  let data;
  try {
    data = await readAtMost(resp, maxBody + 1);
  } catch (e) {
    return fail(`uploadMultipart: reading the response from ${req.url}: ${e.message}`);
  }
  res.body = new TextDecoder().decode(data.subarray(0, maxBody));
  if (data.length > maxBody) res.body += cutNote(o.check, maxBody, 0, true);
  if (!res.ok) return fail(`uploadMultipart: ${req.url} answered HTTP ${resp.status} ${statusText(resp)}`);
  return res;
}

// multipart writes an upload's body and its headers. The framing (each
// part's head, the tail, the Content-Type, the headers) and the upload's
// rules are the module's (js_bridge's multipart, as the Go host asks); the
// host reads the files and draws a boundary none of the parts' bytes hold.
function multipart(req, sandbox, check) {
  const parts = Array.isArray(req.parts) ? req.parts : [];
  const given = (v) => v !== undefined && v !== null;
  const upload = {
    content_type: String(req.contentType ?? ""),
    form_data: req.formData === true,
    headers: req.headers ?? {},
    boundary: "",
    parts: parts.map((p) => ({
      ...(given(p.name) ? { name: String(p.name) } : {}),
      ...(given(p.filename) ? { filename: String(p.filename) } : {}),
      content_type: String(p.contentType ?? ""),
      content: given(p.content),
      file: given(p.filePath),
    })),
  };
  // The rules first, before any file is read: a boundary comes after.
  passes(check, { code: "multipart", upload });
  const contents = [];
  let total = 0;
  parts.forEach((p, i) => {
    let b;
    if (given(p.filePath)) {
      try {
        b = sandbox.readBytes(p.filePath, MAX_TRANSFER_BYTES);
      } catch (e) {
        throw new Error(`part ${i + 1}: ${word(check, e).message.replace(/^fs: /, "")}`);
      }
    } else if (given(p.content)) {
      b = encoder.encode(p.content);
    } else {
      throw new Error(`jsrun: the module let part ${i + 1} pass with nothing in it`);
    }
    contents.push(b);
    total += b.length;
    if (total > MAX_TRANSFER_BYTES) throw new Error(refusal(check, { code: "upload_too_large", max: MAX_TRANSFER_BYTES }).message);
  });
  upload.boundary = boundaryFor(contents);
  const f = passes(check, { code: "multipart", upload }).args;
  if (f.heads.length !== contents.length) throw new Error(`jsrun: the module framed ${f.heads.length} parts of ${contents.length}`);
  const chunks = [];
  contents.forEach((c, i) => chunks.push(encoder.encode(f.heads[i]), c, encoder.encode("\r\n")));
  chunks.push(encoder.encode(f.tail));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { body, headers: f.headers };
}

// boundaryFor draws random boundaries until one is in none of contents.
function boundaryFor(contents) {
  for (;;) {
    const r = new Uint8Array(16);
    crypto.getRandomValues(r);
    const boundary = "toolroute-" + Array.from(r, (x) => x.toString(16).padStart(2, "0")).join("");
    const needle = encoder.encode(boundary);
    if (!contents.some((c) => holds(c, needle))) return boundary;
  }
}

// holds reports whether bytes hold needle.
function holds(bytes, needle) {
  const first = needle[0];
  for (let i = bytes.indexOf(first); i !== -1 && i + needle.length <= bytes.length; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}

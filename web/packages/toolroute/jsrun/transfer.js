// downloadToFile's and uploadMultipart's host side, the Go host's
// (host/jsrun/transfer.go): requests through fetch's send (its guard,
// rewrites and timeout), files through the sandbox's rules, bytes as they
// are. Their failures are answers, never throws, as the prelude gives them.
import { send, readAtMost, statusText, sizeText, DEFAULT_MAX_BODY } from "./fetch.js";
import { MAX_TRANSFER_BYTES } from "./sandbox.js";

// MAX_UPLOAD_PARTS bounds the parts of one upload, as MaxUploadParts.
export const MAX_UPLOAD_PARTS = 100;
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
    return fail(`downloadToFile: ${e.message.replace(/^fs: /, "")}`);
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
    return fail(`downloadToFile: ${e.message.replace(/^fs: /, "")}`);
  }
  return { ...res, success: true, size: data.length };
}

// upload POSTs req's parts ({url, headers, contentType, formData, parts})
// as one multipart body and gives {status, body, ok, error}.
export async function upload(req, o, sandbox) {
  const res = { status: 0, body: "", ok: false, error: null };
  const fail = (error) => ({ ...res, error });
  let body, contentType;
  try {
    ({ body, contentType } = multipart(req, sandbox));
  } catch (e) {
    return fail(`uploadMultipart: ${e.message}`);
  }
  const headers = {};
  for (const k of Object.keys(req.headers ?? {}).sort()) {
    if (k.toLowerCase() !== "content-type") headers[k] = req.headers[k];
  }
  headers["Content-Type"] = contentType;
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
  if (data.length > maxBody) res.body += `\n\n[toolroute: the body was cut at ${sizeText(maxBody)}]`;
  if (!res.ok) return fail(`uploadMultipart: ${req.url} answered HTTP ${resp.status} ${statusText(resp)}`);
  return res;
}

// multipart writes an upload's body and its Content-Type, with a boundary
// found in no part.
function multipart(req, sandbox) {
  const parts = req.parts ?? [];
  if (parts.length === 0) throw new Error("give at least one part");
  if (parts.length > MAX_UPLOAD_PARTS) throw new Error(`${parts.length} parts: an upload takes at most ${MAX_UPLOAD_PARTS}`);
  if (!/^multipart\//i.test(req.contentType ?? "")) {
    throw new Error(`the Content-Type '${req.contentType}' is not multipart/related or multipart/form-data`);
  }
  const contents = [];
  let total = 0;
  parts.forEach((p, i) => {
    let b;
    if (p.filePath !== undefined && p.filePath !== null) {
      try {
        b = sandbox.readBytes(p.filePath, MAX_TRANSFER_BYTES);
      } catch (e) {
        throw new Error(`part ${i + 1}: ${e.message.replace(/^fs: /, "")}`);
      }
    } else if (p.content !== undefined && p.content !== null) {
      b = encoder.encode(p.content);
    } else {
      throw new Error(`part ${i + 1} has neither content nor filePath`);
    }
    contents.push(b);
    total += b.length;
    if (total > MAX_TRANSFER_BYTES) throw new Error(`the parts hold over ${MAX_TRANSFER_BYTES} bytes (5 MB), the most an upload sends`);
  });
  const boundary = newBoundary(contents);
  const chunks = [];
  parts.forEach((p, i) => {
    let head = `--${boundary}\r\n`;
    if (req.formData) {
      let disposition = `form-data; name="${quoteField(p.name ?? "")}"`;
      if (p.filename !== undefined && p.filename !== null) disposition += `; filename="${quoteField(p.filename)}"`;
      head += `Content-Disposition: ${disposition}\r\n`;
    }
    head += `Content-Type: ${oneLine(p.contentType ?? "")}\r\n\r\n`;
    chunks.push(encoder.encode(head), contents[i], encoder.encode("\r\n"));
  });
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { body, contentType: `${req.contentType}; boundary=${boundary}` };
}

// newBoundary draws a boundary that no part holds.
function newBoundary(contents) {
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

// quoteField escapes a name or file name for a quoted Content-Disposition
// parameter as browsers do for form data: '"', CR and LF percent-encoded.
function quoteField(s) {
  return String(s).replaceAll('"', "%22").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

// oneLine keeps a header value on its line.
function oneLine(s) {
  return String(s).replace(/[\r\n]/g, " ");
}

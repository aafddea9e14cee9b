// The runner's questions to the module (wasm/ABI.md, toolroute_check's
// js_bridge), as the Go host's host/jsrun asks them: the bridges' rules
// that need no I/O (fetch's methods, lib's names, _time's formats, an
// upload's parts and framing) and the sentences of the refusals the host
// decides from what it observed doing its I/O or enforcing its sandbox (a
// private address, a path leading outside the sandbox folder, a call out
// of memory) are the module's. The host still decides those: a tool
// reaches the bridges past the prelude.
//
// check is the module's check, (op, args) -> {} | {args} | {error:
// {type, message}}, synchronous: the fs, lib and _time bridges answer
// QuickJS at once (a Host's checkNow, a Toolroute instance's check).

// ask asks the module q ({code, ...}) and gives its answer.
export function ask(check, q) {
  if (typeof check !== "function") {
    throw new Error(`jsrun: no module check is given to this call (js_bridge ${q.code}): run it through a Host, or give the Runner options.check`);
  }
  const a = check("js_bridge", q) ?? {};
  if (typeof a.then === "function") throw new Error(`jsrun: the module check answered js_bridge ${q.code} with a promise: give one that answers at once`);
  return a;
}

// passes throws the module's refusal of q, a rule's question, as an Error.
export function passes(check, q) {
  const a = ask(check, q);
  if (a.error) throw new Error(a.error.message);
  return a;
}

// refusal is the module's refusal of q, which the host decided:
// {type, message}.
export function refusal(check, q) {
  const a = ask(check, q);
  if (!a.error) throw new Error(`jsrun: the module let js_bridge ${q.code} pass, which it refuses always`);
  return a.error;
}

// refused marks e, an error the host threw where it holds no check (the
// sandbox folder's), with its question: word gives its sentence.
export function refused(e, q) {
  return Object.assign(e, { refusal: q });
}

// word gives e in the module's words when it is marked (refused), else as
// it is.
export function word(check, e) {
  return e?.refusal ? new Error(refusal(check, e.refusal).message) : e;
}

// cutNote is the note a body cut at max bytes ends with; total is the
// body's length when the response said it, else 0; short leaves out what
// was kept (uploadMultipart's).
export function cutNote(check, max, total, short = false) {
  return ask(check, { code: "body_cut", max, total, short }).args.note;
}

// The patch that makes quickjs-emscripten's QuickJS poll its interrupt
// handler at every operation: the JS hosts' counterpart of the Go host's
// host/jsrun/patch.go, for @jitl/quickjs-ng-wasmfile-release-sync 0.32.0's
// emscripten-module.wasm (the only build it is written for; patchQuickJS
// refuses any other).
//
// # Why
//
// QuickJS counts function calls and backward jumps down from
// JS_INTERRUPT_COUNTER_INIT (10,000) and polls the interrupt handler, the
// runner's deadline check, when the count reaches zero. A loop whose body is
// one long native call, `for (;;) n += JSON.stringify(big).length` with
// 200,000 objects (0.4 s a turn), ran about 5,000 turns between two polls:
// 26 minutes past a 2 s timeout. The constant is compiled into the wasm and
// quickjs-emscripten has no setting for it. With it at 1, QuickJS polls at
// every call and backward jump, and a call stops at most one operation (one
// native call) after its deadline; the handler then runs at every operation,
// which makes a loop of trivial operations about 3 times slower
// (web/packages/toolroute/jsrun/bench.mjs, `make bench`).
//
// # What
//
// js_poll_interrupts is function 147, not inlined anywhere (it is the only
// code that stores 10,000 into JSContext's interrupt_counter, at offset 288;
// JS_NewContext leaves the counter 0, so the first operation polls):
//
//	local.get 0  local.get 0  i32.load offset=288  local.tee 1   ;; ctx->interrupt_counter
//	i32.const 1  i32.sub  i32.store offset=288                 ;; --
//	local.get 1  i32.const 1  i32.le_s  if (result i32)        ;; was <= 1: poll
//	  i32.const 0  local.set 1
//	  local.get 0  i32.const 10000  i32.store offset=288       ;; = JS_INTERRUPT_COUNTER_INIT
//	  block  local.get 0 i32.load offset=16 ...                ;; ctx->rt
//	    i32.load offset=160 ...                                ;; rt->interrupt_handler
//	    i32.load offset=164 ... call_indirect (type 3)         ;; (rt, rt->interrupt_opaque)
//
// POLL_PATTERN is those 69 bytes, at file offset 25779 and nowhere else; the
// operand of `i32.const 10000` (0x41 0x90 0xce 0x00) is at 25810. It becomes
// 1 in the same three bytes, 0x81 0x80 0x00 (signed LEB128 with two padding
// bytes, which wasm allows up to five), so no size or offset in the module
// changes. The interpreter then decrements 1 to 0 and polls at every call.
//
// Regular expressions keep their own counter (lre_exec's, also 10,000
// steps): stored at two places, function 644 and lre_poll_timeout
// (function 395), each `i32.const 10000  i32.store offset=24` after a
// local.get (REGEX_PATTERN). A step can be long: one comparing a back-reference of
// 4 million characters took a regex 1.06 s past a 1 s deadline on a quiet
// machine. The patch makes those 1,000 (REGEX_POLL_EVERY), which bounds
// that to a tenth at no measurable cost; polling at every step made a
// regex-heavy tool 3 times slower.

//
// The hard stop (hardstop.js) comes last: QuickJS's polls do not reach
// inside a built-in call, which can run for good on its own.
import { addHardStop } from "./hardstop.js";

// QUICKJS_SHA256 is the SHA-256 of the build the patch is written for.
export const QUICKJS_SHA256 = "b56fe5094b8751c47b8c32fb5ed4d75afe2dbb43412d3d983ac5d1156af456da";

// PATCHED_SHA256 is the SHA-256 of what patchQuickJS makes of that build
// (the hard stop in): the package's dist/quickjs.wasm when it is current
// (scripts/pack-assets.mjs writes it), which Node's runner then compiles
// as it is, without patching the dependency's at every start. A change to
// the patch changes it (test/startup.test.js says to what).
export const PATCHED_SHA256 = "09ad4c081514bf18af785db5cce7705da94e49f04599cc8dfd7d7491846055d6";

// POLL_EVERY is how many operations pass between two polls of the interrupt
// handler in the patched module (JS_INTERRUPT_COUNTER_INIT).
export const POLL_EVERY = 1;

const POLL_PATTERN = Uint8Array.of(
  0x20, 0x00, 0x20, 0x00, 0x28, 0x02, 0xa0, 0x02, 0x22, 0x01, 0x41, 0x01, 0x6b, 0x36, 0x02, 0xa0, 0x02,
  0x20, 0x01, 0x41, 0x01, 0x4c, 0x04, 0x7f, 0x41, 0x00, 0x21, 0x01,
  0x20, 0x00, 0x41, 0x90, 0xce, 0x00, 0x36, 0x02, 0xa0, 0x02,
  0x02, 0x40, 0x20, 0x00, 0x28, 0x02, 0x10, 0x22, 0x02, 0x28, 0x02, 0xa0, 0x01, 0x22, 0x03, 0x45, 0x0d, 0x00,
  0x20, 0x02, 0x20, 0x02, 0x28, 0x02, 0xa4, 0x01, 0x20, 0x03, 0x11, 0x03, 0x00,
);
const POLL_PATTERN_OFFSET = 25779;
// POLL_COUNTER_OFFSET is the file offset of the i32.const's operand.
const POLL_COUNTER_OFFSET = 25810;
const OLD_COUNTER = Uint8Array.of(0x90, 0xce, 0x00); // 10000

// REGEX_POLL_EVERY is how many regex steps pass between two polls.
export const REGEX_POLL_EVERY = 1000;
// REGEX_PATTERN is the regex counter's reset, `i32.const 10000  i32.store
// offset=24`, found at these file offsets only; the operand is 1 byte in.
const REGEX_PATTERN = Uint8Array.of(0x41, 0x90, 0xce, 0x00, 0x36, 0x02, 0x18);
export const REGEX_PATTERN_OFFSETS = [147291, 227990];

// CLOCK_IMPORT is the build's import that gives Date.now(), which the hard
// stop (hardstop.js) reads.
const CLOCK_IMPORT = ["a", "p"];

export const WRONG_QUICKJS = "jsrun: the QuickJS module is not @jitl/quickjs-ng-wasmfile-release-sync 0.32.0's; the interrupt-poll patch (web/packages/toolroute/jsrun/patch.js) is written for that build only";

// patchQuickJS returns a copy of wasm, the quickjs-ng sync variant's
// emscripten-module.wasm (bytes), that polls the interrupt handler every
// POLL_EVERY operations and has the hard stop (hardstop.js). It throws on
// any other module. {hardStop: false} leaves the hard stop out, for the
// tests and the benchmark of the rest.
export async function patchQuickJS(wasm, { hardStop = true } = {}) {
  const orig = new Uint8Array(wasm.buffer ?? wasm, wasm.byteOffset ?? 0, wasm.byteLength);
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", orig));
  if (hex(sum) !== QUICKJS_SHA256) throw new Error(`${WRONG_QUICKJS} (its SHA-256 is ${hex(sum)})`);
  // The hash settles it; this says what the patch expects to find.
  if (!matches(orig, POLL_PATTERN_OFFSET, POLL_PATTERN) || !matches(orig, POLL_COUNTER_OFFSET, OLD_COUNTER)) {
    throw new Error(`${WRONG_QUICKJS}: js_poll_interrupts is not at ${POLL_PATTERN_OFFSET}`);
  }
  for (const at of REGEX_PATTERN_OFFSETS) {
    if (!matches(orig, at, REGEX_PATTERN)) throw new Error(`${WRONG_QUICKJS}: the regex counter's reset is not at ${at}`);
  }
  const out = orig.slice();
  out.set(sleb128(POLL_EVERY, OLD_COUNTER.length), POLL_COUNTER_OFFSET);
  for (const at of REGEX_PATTERN_OFFSETS) out.set(sleb128(REGEX_POLL_EVERY, OLD_COUNTER.length), at + 1);
  // Last: it moves every offset above.
  return hardStop ? addHardStop(out, CLOCK_IMPORT) : out;
}

// sleb128 encodes v (non-negative, small) in exactly n bytes.
export function sleb128(v, n) {
  const out = new Uint8Array(n);
  let rest = v;
  for (let i = 0; i < n; i++, rest >>= 7) out[i] = (rest & 0x7f) | (i < n - 1 ? 0x80 : 0);
  if (rest !== 0 || out[n - 1] & 0x40) throw new Error(`jsrun: ${v} does not fit ${n} bytes of signed LEB128`);
  return out;
}

function matches(b, at, want) {
  for (let i = 0; i < want.length; i++) if (b[at + i] !== want[i]) return false;
  return true;
}

function hex(b) {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

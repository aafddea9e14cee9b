// Package jsrun runs JS tools in QuickJS (github.com/fastschema/qjs v0.0.6,
// QuickJS compiled to wasm, run by wazero) with the bridges the original
// system's tools use: fetch, downloadToFile, uploadMultipart, fs, console,
// _time, lib, google, btoa and atob (the last two in the prelude alone).
//
// # The module words the refusals
//
// The bridges' rules that need no I/O (fetch's methods, lib's names,
// _time's formats, an upload's parts and its multipart framing) and the sentences of the refusals the
// host decides itself (a private address dialed, a path leading outside
// the sandbox folder, a call out of memory) are the module's
// (toolroute_check's js_bridge, wasm/ABI.md), as in the JS hosts: a call's
// context carries the module's checker (module.WithChecker; host.Host gives
// it), without which a refusal says so.
//
// # One fresh runtime per call
//
// Every call runs in a QuickJS runtime no other call has used, so no state
// leaks between calls or sessions, and a runtime a call broke (a trap, a
// stack overflow) is simply never used again. Making a runtime takes a few
// milliseconds, so the Runner keeps some ready, made in the background. A
// tool's source is compiled to bytecode once and loaded from it per call.
//
// # The sandbox
//
// qjs v0.0.6 leaves the sandbox to its user. jsrun patches qjs's QuickJS
// module when it loads it (patch.go; the module's SHA-256 is checked first,
// and any other build is refused):
//
//   - std, os and bjson: registered under 40 random characters per process
//     and imported by nobody, they cannot be named, as globals or by dynamic
//     import. With os go its timers: bridges are synchronous, so a pending
//     promise with no job to run will never settle.
//   - The working folder qjs mounts at / is a new empty folder per runtime,
//     removed after it.
//   - The C stack grows from 64 KiB to 1.9 MiB, and every write of the
//     stack pointer is checked (QuickJS's own check is compiled out for
//     WASI): a recursion of any depth, in JS or in native code (JSON.parse
//     of 200,000 nested arrays), stops with a stack overflow before it
//     writes below the stack, where it once overwrote QuickJS's data and
//     ran on for good.
//   - Memory: the module's memory gets a maximum, the call's limit (64 MB by
//     default); QuickJS's own limit was not enforced.
//   - Timeouts: the hard stop. A counter at every loop header and at the
//     entry of the functions that can recurse (or could run long before
//     another tick) calls a check every thousand ticks, in native code as
//     in JS; the check traps when the call's deadline has passed or its
//     stop word is set (a cancel: Ctrl-C, a client gone). Every call ends
//     within its timeout and a few milliseconds whatever it runs (a
//     regular expression, a sort, a join of millions of numbers), the
//     bridges' Go code aside, which ends with the call's context. The
//     check's clock call is also what lets the Go runtime stop the
//     goroutine for a garbage collection: wazero's compiled code has no
//     other such point, and a collection waiting on a call that never met
//     one held every goroutine, signal handlers included, for as long as
//     the call ran. QuickJS's interrupt handler, which the interpreter
//     alone polled, is not used. The hard stop costs 1.1 to 1.2 times the
//     same module without it (BenchmarkHardStop: a trivial loop, native
//     work, a tool call); wazero's close-on-context-done, the other way to
//     stop, 1.3 to 10 times. A call awaiting a promise that cannot settle
//     waits for its deadline without using the CPU.
//   - A trap (the hard stop, a stack overflow) leaves QuickJS half changed:
//     the runner reads why it trapped from a word the patch's code stores,
//     reports it to the model, and closes the runtime's module without
//     calling QuickJS again.
//
// # Calls into QuickJS
//
// qjs v0.0.6 asks the module for an export by name on every call into
// QuickJS, and wazero answers each lookup with a new call engine (about
// 3.7 µs; a tool call makes some 22 such calls). qjs's Go code is used as
// it is: after qjs.New, jsrun puts a wrapper in front of the runtime's
// module (exports.go), set into qjs.Runtime's unexported module field,
// which is looked up by name and type, so a qjs without it is refused
// rather than patched blindly. The wrapper keeps one api.Function per export
// name and the call engines behind it; a call that re-enters QuickJS (a
// bridge evaluating JS inside a call) takes an engine no outer call is
// using. This took a warm call (BenchmarkCallItself) from about 112 µs to
// 30 µs, and one trivial call into QuickJS (BenchmarkQJSCall) from about
// 4 µs to 0.3 µs.
//
// fetch refuses loopback, private and link-local addresses at dial time
// (after DNS), unless FetchOptions.AllowPrivate; FetchOptions.Rewrites send the URLs
// under a scheme, host and path elsewhere, matched on the parsed URL.
// downloadToFile and uploadMultipart make their requests through the same
// code (callState.send), so the same addresses are refused and the same
// rules rewrite; they are ops of the one multiplexed host function
// (net.download, net.upload), and carry at most MaxTransferBytes. fs
// reaches only Options.SandboxRoot, through an os.Root; the transfers
// write and read there, bytes as they are. A tool's environment values
// never appear in its errors or logs.
//
// The conformance cases in testdata/js are the specification every host
// replays; TestConformance replays them here.
package jsrun

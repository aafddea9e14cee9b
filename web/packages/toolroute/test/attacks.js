// The attacks on a JS call's timeout of issue 33 (item 5), which every JS
// host's test runs: hardstop.test.js in Node, ui-hardstop-browser.test.js
// in Chromium, worker-hardstop.test.js in workerd.

// ATTACKS are what a tool (or the model through js_eval) can run: body is
// execute's. ok tells whether the result is a clear one for it.
export const ATTACKS = [
  {
    // The issue's: 16 minutes in the Go host. In V8 the recursion of
    // QuickJS's JSON parser overflows V8's own stack first.
    name: "JSON.parse of 200,000 nested arrays",
    body: `try { return JSON.parse("[".repeat(200000) + "]".repeat(200000)); } catch (e) { return String(e); }`,
    ok: (res) => res.status === "success" ? /RangeError/.test(res.output) : /stack overflow|timed out/.test(res.message),
  },
  {
    name: "endless recursion",
    body: `function f(n) { return f(n + 1) + 1; } try { return f(0); } catch (e) { return String(e); }`,
    ok: (res) => res.status === "success" && /RangeError: Maximum call stack size exceeded/.test(res.output),
  },
  {
    name: `eval of "(" repeated 100,000 times`,
    body: `try { return eval("(".repeat(1e5)); } catch (e) { return String(e); }`,
    ok: (res) => res.status === "success" ? /Error/.test(res.output) : /stack overflow/.test(res.message),
  },
  {
    name: "regex backtracking, /(a+)+b/ over 40 a's",
    body: `return /(a+)+b/.test("a".repeat(40));`,
    ok: (res) => res.error_type === "timeout",
  },
  {
    name: "JSON.stringify of 300,000 objects, again and again",
    body: `const a = []; for (let i = 0; i < 3e5; i++) a.push({ i, s: "abcdefghij" }); let n = 0; for (;;) n += JSON.stringify(a).length;`,
    ok: (res) => res.error_type === "timeout" || res.error_type === "out_of_memory",
  },
  {
    name: "Array.sort of 300,000 numbers with a slow comparator",
    body: `const a = []; for (let i = 0; i < 3e5; i++) a.push(Math.random()); a.sort((x, y) => { for (let j = 0; j < 100; j++); return x - y; }); return 1;`,
    ok: (res) => res.error_type === "timeout",
  },
  {
    name: "a promise that never settles",
    body: `return new Promise(() => {});`,
    ok: (res) => res.error_type === "timeout" && /never settles/.test(res.message),
  },
  {
    // One built-in call of 10^10 steps: QuickJS polls nothing inside it.
    // It ran past 60 s of a 1 s timeout before the hard stop.
    name: "String.indexOf, naive, over 200,000 characters",
    body: `return "a".repeat(2e5).indexOf("a".repeat(1e5) + "b");`,
    ok: (res) => res.error_type === "timeout",
  },
  {
    name: "String.split by a 2,000,000-character separator",
    body: `return "a".repeat(4e6).split("a".repeat(2e6) + "b").length;`,
    ok: (res) => res.error_type === "timeout",
  },
];

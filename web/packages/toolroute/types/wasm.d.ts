// "toolroute/toolroute.wasm" and "toolroute/quickjs.wasm" imported as modules,
// as workerd and wrangler import .wasm files: a compiled WebAssembly.Module.
declare const module: import("./index.js").WasmModule;
export default module;

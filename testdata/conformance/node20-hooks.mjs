// Module hooks (see node20.mjs): a file's import of fs gets node:fs with a
// globSync that throws.
const shim = 'data:text/javascript,' + encodeURIComponent(
  "export * from 'node:fs'; export { default } from 'node:fs';\n" +
  "export function globSync() { throw new Error('fs.globSync needs Node 22 or newer'); }\n");

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.startsWith('file:')) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}

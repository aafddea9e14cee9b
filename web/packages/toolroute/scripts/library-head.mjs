// licenseLines writes the license of each bundled npm package as comment
// lines for the head of a generated library in manifests/lib: its name,
// version and license, then its LICENSE file.
import { readFile } from "node:fs/promises";
import path from "node:path";

export async function licenseLines(web, packages) {
  let head = "";
  for (const name of packages) {
    const pkg = JSON.parse(await readFile(path.join(web, "node_modules", name, "package.json"), "utf8"));
    const license = await readFile(path.join(web, "node_modules", name, "LICENSE"), "utf8");
    head += `//\n// ${name} ${pkg.version} (${pkg.license}):\n` +
      license.trim().split("\n").map((l) => ("// " + l).trimEnd()).join("\n") + "\n";
  }
  return head;
}

// DirStore keeps the sandbox in a folder of the machine, for Node. It is in
// its own file so that the browser and worker bundles never import node:fs.
import fs from "node:fs";
import path from "node:path";
import { AccessDenied } from "./sandbox.js";

export class DirStore {
  constructor(dir) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = fs.realpathSync(path.resolve(dir));
  }

  // #resolve returns the file's path in the folder, refusing one whose
  // existing part leads outside the root through a symbolic link.
  #resolve(rel) {
    const full = path.join(this.root, rel);
    for (let p = full; ; p = path.dirname(p)) {
      let real;
      try {
        real = fs.realpathSync(p);
      } catch (e) {
        if (e.code !== "ENOENT" && e.code !== "ENOTDIR") throw e;
        if (isLink(p)) throw new AccessDenied("escapes"); // a dangling link may point anywhere
        if (p === this.root) break;
        continue;
      }
      if (real !== this.root && !real.startsWith(this.root + path.sep)) throw new AccessDenied("escapes");
      break;
    }
    return full;
  }

  stat(rel) {
    const full = this.#resolve(rel);
    try {
      const info = fs.statSync(full);
      return { dir: info.isDirectory(), size: info.size };
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return null;
      throw e;
    }
  }

  read(rel) {
    return fs.readFileSync(this.#resolve(rel), "utf8");
  }

  readBytes(rel) {
    return new Uint8Array(fs.readFileSync(this.#resolve(rel)));
  }

  write(rel, content, append) {
    const full = this.#resolve(rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    this.#resolve(rel); // the folders just made are real ones
    if (append) fs.appendFileSync(full, content);
    else fs.writeFileSync(full, content);
  }
}

function isLink(p) {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

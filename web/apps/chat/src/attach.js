// The files a user attaches to a message: in the composer, picked with the
// paperclip, dropped on the message box or pasted into it, shown as chips
// with a remove button until the message goes; in the log, a sent
// message's images as thumbnails and its text files as name chips. The
// page only reads the files: the module tells what each one is, and
// refuses what it cannot send, before the turn (wasm/ABI.md, Attachments).

// readFile is a file's bytes in base64, as the start event takes them.
export function readFile(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error ?? new Error(`${file.name} could not be read`));
    r.readAsDataURL(file);
  });
}

const kb = (bytes) => (bytes < 1024 ? `${bytes} bytes` : bytes < 1 << 20 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / (1 << 20)).toFixed(1)} MB`);

// fileIcon is a text file's picture: a page with a folded corner.
function fileIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "16");
  svg.setAttribute("height", "16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "chip-icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8zM14 3v5h5M9 13h6M9 17h6");
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "2");
  path.setAttribute("stroke-linecap", "round");
  path.setAttribute("stroke-linejoin", "round");
  svg.append(path);
  return svg;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// composerFiles wires the composer's attachments: list (the ul of chips),
// input (a hidden file input), button (the paperclip), box (the message
// box, which takes pastes), drop (the element files are dropped on), and
// announce(text) for screen readers. Its take() gives the files for a
// message, read, and empties the list; restore(files) puts back files a
// refused message carried.
export function composerFiles({ list, input, button, box, drop, announce }) {
  let files = []; // {name, size, type, file?, data?, url?}
  const render = () => {
    list.replaceChildren();
    list.hidden = files.length === 0;
    for (const f of files) {
      const chip = el("li", "chip");
      // The browser's type only picks the chip's picture: the module
      // tells what the file is.
      if (f.type?.startsWith("image/")) {
        const img = el("img", "chip-thumb");
        img.alt = "";
        img.src = f.url ??= f.file ? URL.createObjectURL(f.file) : `data:${f.type};base64,${f.data}`;
        chip.append(img);
      } else {
        chip.append(fileIcon());
      }
      chip.append(el("span", "chip-name", f.name), el("span", "chip-size", kb(f.size)));
      const remove = el("button", "chip-remove", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", `Remove ${f.name}`);
      remove.title = `Remove ${f.name}`;
      remove.onclick = () => {
        files = files.filter((x) => x !== f);
        if (f.url && f.file) URL.revokeObjectURL(f.url);
        render();
        announce(`Removed ${f.name}`);
        box.focus();
      };
      chip.append(remove);
      list.append(chip);
    }
  };
  const add = (picked) => {
    const added = [...picked].filter((f) => f && f.name !== undefined);
    if (!added.length) return;
    files.push(...added.map((file) => ({ name: file.name || "pasted", size: file.size, type: file.type, file })));
    render();
    announce(`Attached ${added.map((f) => f.name || "pasted").join(", ")}`);
  };
  button.onclick = () => input.click();
  input.onchange = () => {
    add(input.files);
    input.value = "";
    box.focus();
  };
  box.addEventListener("paste", (e) => {
    const picked = e.clipboardData?.files;
    if (!picked?.length) return;
    // A pasted picture comes with no text; text pasted with files is kept.
    if (!e.clipboardData.getData("text/plain")) e.preventDefault();
    add(picked);
  });
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  drop.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    drop.classList.add("dropping");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dropping"));
  drop.addEventListener("drop", (e) => {
    drop.classList.remove("dropping");
    if (!hasFiles(e)) return;
    e.preventDefault();
    add(e.dataTransfer.files);
    box.focus();
  });
  render();
  return {
    get count() {
      return files.length;
    },
    // take reads the files, as send takes them ({name, data}), with what
    // restore needs to show them again, and empties the list.
    async take() {
      const taken = files;
      files = [];
      render();
      try {
        return await Promise.all(taken.map(async (f) => ({ name: f.name, data: f.data ?? (await readFile(f.file)), size: f.size, type: f.type })));
      } catch (err) {
        files = [...taken, ...files]; // nothing lost: the chips come back
        render();
        throw err;
      }
    },
    restore(back) {
      files = [...back.map((f) => ({ name: f.name, data: f.data, size: f.size, type: f.type })), ...files];
      render();
    },
  };
}

// sentFiles renders a logged user message's attachments: each image a
// thumbnail, each text file a chip with its name.
export function sentFiles(attachments) {
  const ul = el("ul", "msg-files");
  ul.setAttribute("aria-label", "Attached files");
  for (const a of attachments) {
    const li = el("li", a.mime_type === "text/plain" ? "chip" : "thumb");
    if (a.mime_type !== "text/plain" && a.data) {
      const img = el("img");
      img.src = `data:${a.mime_type};base64,${a.data}`;
      img.alt = a.name;
      img.title = a.name;
      li.append(img);
    } else {
      li.append(fileIcon(), el("span", "chip-name", a.name));
      li.title = `${a.name}: sent as text`;
    }
    ul.append(li);
  }
  return ul;
}

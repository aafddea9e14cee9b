// The page's IndexedDB store (web/apps/chat/idbstore.js) in headless Chromium: a
// database of the version that kept empty sessions is upgraded without
// them; a session is stored with its first message and titled after it,
// renamed and deleted. Skipped when there is no Chromium (set CHROMIUM).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

test("IDBStore: old empty sessions dropped; stored with the first message, titled, renamed, deleted", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  // the page's src/ and the package's host/ as ES modules, and an empty page to import them.
  const srv = createServer(async (req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>idb</title>");
    if (!/^\/(apps\/chat\/src|packages\/toolroute\/host)\/[a-z-]+\.js$/.test(req.url)) return res.writeHead(404).end();
    try {
      res.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(path.join(web, req.url)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${srv.address().port}/`);
    const got = await page.evaluate(async () => {
      const req = (r) => new Promise((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      // Version 1, as the page had it: "new chat" stored an empty session.
      const open = indexedDB.open("toolroute", 1);
      open.onupgradeneeded = () => {
        const db = open.result;
        db.createObjectStore("sessions", { keyPath: "id" });
        db.createObjectStore("messages", { autoIncrement: true }).createIndex("session", "session");
        db.createObjectStore("settings");
        db.createObjectStore("files");
      };
      const old = await req(open);
      const tx = old.transaction(["sessions", "messages"], "readwrite");
      const at = "2026-01-02T12:00:00.000Z";
      tx.objectStore("sessions").put({ id: "empty", title: "", created: at, updated: at, messages: 0 });
      tx.objectStore("sessions").put({ id: "kept", title: "Hello", created: at, updated: at, messages: 1 });
      tx.objectStore("messages").add({ session: "kept", message: { type: "user", content: "Hello" } });
      await new Promise((r) => (tx.oncomplete = r));
      old.close();

      const { IDBStore } = await import("/apps/chat/src/idbstore.js");
      const store = await IDBStore.open("toolroute");
      const out = {};
      out.upgraded = (await store.sessions()).map((s) => s.id);
      out.emptyGone = (await store.session("empty")) === null;
      await store.append("new", [{ type: "user", content: "Plan my trip to Lisbon in May, with a day in Sintra and a night of fado please" }, { type: "assistant", content: "Gladly." }]);
      const s = await store.session("new");
      out.titled = [s.title, s.messages];
      out.listed = (await store.sessions()).map((x) => x.id);
      out.renamed = (await store.renameSession("new", "Lisbon")).title;
      out.renamedKept = (await store.session("new")).title;
      out.renameMissing = await store.renameSession("nope", "x");
      out.deleted = await store.deleteSession("new");
      out.deletedAgain = await store.deleteSession("new");
      out.after = [(await store.sessions()).map((x) => x.id), (await store.messages("new")).length];
      return out;
    });
    assert.deepEqual(got, {
      upgraded: ["kept"],
      emptyGone: true,
      titled: ["Plan my trip to Lisbon in May, with a day in Sintra and a…", 2],
      listed: ["new", "kept"],
      renamed: "Lisbon",
      renamedKept: "Lisbon",
      renameMissing: null,
      deleted: true,
      deletedAgain: false,
      after: [["kept"], 0],
    });
  } finally {
    await browser.close();
    srv.close();
  }
});

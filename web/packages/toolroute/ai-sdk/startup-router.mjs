// startup-bench.mjs's router app: the plain app's native tool and a JS tool
// through createRouter, imported as an app imports the package, the JS tool
// run by jsrun's Runner.
import { createRouter } from "toolroute/ai-sdk";
import { Runner, MemoryStore } from "toolroute/jsrun";
import { tool } from "toolroute";
import { firstTurn, now } from "./startup-turn.mjs";

const router = await createRouter({
  catalogue: {
    manifests: [{
      file: "word_count.json",
      source: "word_count.js",
      text: JSON.stringify({ name: "word_count", description: "Counts the words of a text", function: "count", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }),
    }],
  },
  sources: { "word_count.js": "function count(args) { return String(args.text.split(/\\s+/).filter(Boolean).length); }" },
  tools: [tool({ name: "get_time", description: "The current time", inputSchema: { type: "object", properties: {} }, execute: now })],
  runJS: new Runner({ store: new MemoryStore() }),
});
const chat = router.session("startup");
await firstTurn("router", chat.tools, chat.prepareStep);

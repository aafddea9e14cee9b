// startup-bench.mjs's router app without a JS tool: the plain app's native
// tool through createRouter, which then never loads QuickJS. The bench
// shows what the module alone costs a start.
import { createRouter } from "toolroute/ai-sdk";
import { tool } from "toolroute";
import { firstTurn, now } from "./startup-turn.mjs";

const router = await createRouter({
  tools: [tool({ name: "get_time", description: "The current time", inputSchema: { type: "object", properties: {} }, execute: now })],
});
const chat = router.session("startup");
await firstTurn("native", chat.tools, chat.prepareStep);

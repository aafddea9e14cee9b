// startup-bench.mjs's plain app: an AI SDK app with one native tool.
import { tool, jsonSchema } from "ai";
import { firstTurn, now } from "./startup-turn.mjs";

await firstTurn("plain", {
  get_time: tool({ description: "The current time", inputSchema: jsonSchema({ type: "object", properties: {} }), execute: now }),
});

// save_memory: a memory kept by the host (toolroute.memories), which puts
// every saved memory in the system prompt of later conversations.
async function execute(params) {
  const m = await toolroute.memories.save(params.text);
  return "Saved memory #" + m.id + ".";
}

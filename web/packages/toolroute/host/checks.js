// The module's argument checks (wasm/ABI.md, toolroute_check): the rules
// and refusal texts of the hosts' operations that need no I/O (a tool's,
// a variable's, a task's, an agent's or a provider's name) live in the
// module once, and every host asks it before it does an operation's I/O.
// A host gives each operation a check function in its second argument,
// {check(op, args) -> {} | {args} | {error: {type, message}}} (Host.op
// does); checked asks it.

// checked asks ctx's check whether op's args pass: it returns the args as
// the operation is to use them, and throws the module's refusal as a tool
// error ({type, message}) the tool's code catches.
export async function checked(ctx, op, args) {
  if (typeof ctx?.check !== "function") throw new Error(`toolroute: no module check is given to this operation (${op}): run it through a Host`);
  const a = await ctx.check(op, args);
  if (a?.error) throw Object.assign(new Error(a.error.message), { type: a.error.type });
  return a?.args ?? args;
}

// checkName asks whether name may be a name of op's kind: tool_name,
// variable_name, task_name, agent_name or provider_name.
export async function checkName(ctx, op, name) {
  await checked(ctx, op, { name });
}

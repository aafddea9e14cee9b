// The parts of the official MCP client that mcp.js uses, in a module of
// their own so that mcp.js can import them when a server first connects
// (and a bundler keeps only these).
export { Client, StreamableHTTPClientTransport, ProtocolError } from "@modelcontextprotocol/client";

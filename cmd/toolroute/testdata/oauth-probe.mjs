// Connects to ENDPOINT without toolroute's token as the MCP TypeScript SDK's
// clients do, with an OAuth provider (as OAuth-aware clients have) and
// without, and prints the error each shows its user, a line each.
// node oauth-probe.mjs SDK_DIR ENDPOINT
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdk, endpoint] = process.argv.slice(2);
const esm = (p) => pathToFileURL(join(sdk, 'dist', 'esm', p)).href;
const { Client } = await import(esm('client/index.js'));
const { StreamableHTTPClientTransport } = await import(esm('client/streamableHttp.js'));

let info;
const provider = {
  get redirectUrl() { return 'http://127.0.0.1:9/callback'; },
  get clientMetadata() { return { client_name: 'probe', redirect_uris: ['http://127.0.0.1:9/callback'] }; },
  clientInformation() { return info; },
  saveClientInformation(i) { info = i; },
  tokens() { return undefined; },
  saveTokens() {},
  redirectToAuthorization(u) { console.log(`redirected to ${u}`); },
  saveCodeVerifier() {},
  codeVerifier() { return 'verifier'; },
};
for (const [name, authProvider] of [['oauth', provider], ['plain', undefined]]) {
  try {
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), authProvider ? { authProvider } : {});
    await new Client({ name: 'probe', version: '1' }).connect(transport);
    console.log(`${name}: connected`);
  } catch (e) {
    console.log(`${name}: ${e.message}`);
  }
}

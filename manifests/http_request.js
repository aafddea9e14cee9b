// http_request: one HTTP request through the fetch bridge.
async function execute(params) {
  var options = { method: params.method || "GET", headers: params.headers || {} };
  if (params.body !== undefined && params.body !== null) {
    options.body = params.body;
  }
  var response = await fetch(params.url, options);
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body: await response.text()
  };
}

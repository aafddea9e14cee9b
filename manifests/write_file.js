// write_file: a text file in the sandbox folder through the fs bridge.
function execute(params) {
  if (params.append) {
    fs.appendFile(params.path, params.content);
    return "Appended " + params.content.length + " characters to " + params.path;
  }
  fs.writeFile(params.path, params.content);
  return "Wrote " + params.content.length + " characters to " + params.path;
}

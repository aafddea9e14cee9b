// read_file: a text file from the sandbox folder through the fs bridge.
function execute(params) {
  if (!fs.exists(params.path)) {
    throw new Error("File not found: " + params.path + ". Use write_file to create it, or check the path.");
  }
  return fs.readFile(params.path);
}

// read_file: a text file from the sandbox folder through the fs bridge.
function execute(params) {
  try {
    return fs.readFile(params.path);
  } catch (e) {
    if (/file not found/.test(e.message)) {
      throw new Error(e.message + ": use write_file to create it, or check the path");
    }
    throw e;
  }
}

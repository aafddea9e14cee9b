function execute(params) {
  const n = params.n;
  return n +;
}

// get_current_time: the current time through the _time bridge.
function execute(params) {
  return _time(params.timezone || undefined, params.format || "iso8601");
}

async function execute(params) {
  var r = await fetch("https://weather.example/v1?q=" + encodeURIComponent(params.city) + "&key=" + params._env.WEATHER_API_KEY);
  return r.json();
}

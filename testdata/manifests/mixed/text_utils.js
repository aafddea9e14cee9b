function _words(text) { return text.split(/\s+/).filter(Boolean); }
function wordCount(params) { return _words(params.text).length; }
function regexExtract(params) { return params.text.match(new RegExp(params.pattern, "g")) || []; }
function base64Encode(params) { return btoa(params.text); }

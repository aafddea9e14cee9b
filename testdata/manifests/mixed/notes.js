const { Parser } = lib("htmlparser2");
const notes = [];
function addNote(params) { notes.push(params.text); return "added"; }
// listNotes was renamed, and the manifest not told
function listNote() { return notes.join("\n"); }

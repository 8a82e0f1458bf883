// Each document as js-yaml 4 (`load`, as SPEC-0007's and SPEC-0005's arbiters call it) and npm yaml
// 2.8.2 (`parse`, as rawko-sdk calls it) read it, with JavaScript types kept as in yaml_probe.js.
// Input (stdin): [document, …]; output: [{jsYaml: {value}|{error}, yaml: {value}|{error}}, …].
"use strict";
const fs = require("fs");
const jsYaml = require("js-yaml");
const { parse } = require("yaml");
const { typed } = require("./typed");

function attempt(read) {
  try { return { value: typed(read()) }; }
  catch (e) { return { error: `${e.name}: ${String(e.message).split("\n")[0]}` }; }
}

const docs = JSON.parse(fs.readFileSync(0, "utf8"));
const warn = console.warn;
console.warn = () => {};  // npm yaml warns on unknown tags; only values and errors matter here
process.stdout.write(JSON.stringify(docs.map((doc) => ({
  jsYaml: attempt(() => jsYaml.load(doc)),
  yaml: attempt(() => parse(doc)),
}))));
console.warn = warn;

// Each document as js-yaml 4 (`load`, as SPEC-0007's and SPEC-0005's arbiters call it) and npm yaml
// 2.8.2 (`parse`, as rawko-sdk calls it) read it, with JavaScript types kept as in yaml_probe.js.
// Input (stdin): [document, …]; output: [{jsYaml: {value}|{error}, yaml: {value}|{error}}, …].
"use strict";
const fs = require("fs");
const jsYaml = require("js-yaml");
const { parse } = require("yaml");

function typed(x) {
  if (x instanceof Date) return { $date: isNaN(x.getTime()) ? null : x.getTime() };
  if (x instanceof Uint8Array) return { $bytes: Array.from(x) };
  if (x instanceof Set) return { $set: [...x].map(typed) };
  if (x instanceof Map) return { $map: [...x].map(([k, v]) => [typed(k), typed(v)]) };
  if (typeof x === "number" && !isFinite(x)) return { $number: String(x) };
  if (typeof x === "number" && Object.is(x, -0)) return { $number: "-0" };
  if (Array.isArray(x)) return x.map(typed);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typed(v)]));
  return x === undefined ? { $undefined: true } : x;
}

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

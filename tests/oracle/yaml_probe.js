// How npm `yaml` 2.8.2 (rawko-sdk) reads YAML documents, with each value's JavaScript type kept:
// dates, byte arrays, Sets and Maps are tagged so the Python side can compare them (warnings go to stderr:
// "silent" would also drop the errors).
// Input (stdin): [document, …]; output: [{value} or {error}, …].
"use strict";
const fs = require("fs");
const { parse } = require("yaml");

function typed(x) {
  if (x instanceof Date) return { $date: isNaN(x.getTime()) ? null : x.getTime() };
  if (x instanceof Uint8Array) return { $bytes: Array.from(x) };
  if (x instanceof Set) return { $set: [...x].map(typed) };
  if (x instanceof Map) return { $map: [...x].map(([k, v]) => [typed(k), typed(v)]) };
  if (typeof x === "number" && !isFinite(x)) return { $number: String(x) };
  if (Array.isArray(x)) return x.map(typed);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typed(v)]));
  return x === undefined ? { $undefined: true } : x;
}

const docs = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map((doc) => {
  try { return { value: typed(parse(doc)) }; }
  catch (e) { return { error: `${e.name}: ${e.message.split("\n")[0]}` }; }
})));

// One node for a whole test run: runs any oracle script of this folder on each request as if it were its own
// process (the request's input its stdin, its stdout the answer), so a test run pays node's start once.
// Each run loads the script afresh (its module state is new); the packages it requires stay loaded.
// Input: one JSON line per request, {"script": "spec_arbiter.js", "input": "<stdin text>"};
// output: one JSON line per request, {"stdout": "…"} or {"error": "…"} (what made the script throw).
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const readFileSync = fs.readFileSync;
const write = process.stdout.write.bind(process.stdout);
let stdin = null;
let captured = null;

// The scripts read their whole stdin with fs.readFileSync(0, "utf8") and answer with process.stdout.write.
fs.readFileSync = function (file, options) {
  if (file === 0 && stdin !== null) return options ? stdin : Buffer.from(stdin, "utf8");
  return readFileSync.apply(fs, arguments);
};

function run(request) {
  const script = path.join(__dirname, path.basename(request.script));
  stdin = request.input;
  captured = [];
  process.stdout.write = (chunk) => (captured.push(String(chunk)), true);
  const resolved = require.resolve(script);
  try {
    delete require.cache[resolved];
    require(script);
    return { stdout: captured.join("") };
  } catch (e) {
    return { error: String((e && e.stack) || e) };
  } finally {
    process.stdout.write = write;
    stdin = null;
    captured = null;
    // Let the run's module (and all its state: the requests, the store it read) be collected: node keeps every
    // module it loaded in the cache and in its parent's children, which grew this process to over a gigabyte.
    delete require.cache[resolved];
    module.children = module.children.filter((child) => child.id !== resolved);
  }
}

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  write(JSON.stringify(run(JSON.parse(line))) + "\n");
});

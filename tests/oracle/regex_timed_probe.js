// Test oracle for undecided matches: what V8 says of `new RegExp(source, flags).exec(text)`, given at most `ms`
// milliseconds (V8's own backtracking can run for years: a case that does not finish is reported, not waited for).
// Input (stdin): [[source, flags, text, ms], …]; output: [{error} | {span: [start, end] | null} | {timeout: true}, …]
// in UTF-16 units.
"use strict";
const fs = require("fs");
const vm = require("vm");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const context = vm.createContext({});
const exec = "(() => { const m = new RegExp(source, flags).exec(text); return m ? [m.index, m.index + m[0].length] : null; })()";
process.stdout.write(JSON.stringify(cases.map(([source, flags, text, ms]) => {
  try { new RegExp(source, flags); } catch (e) { return { error: e.message }; }
  Object.assign(context, { source, flags, text });
  try {
    return { span: vm.runInContext(exec, context, { timeout: ms }) };
  } catch (e) {
    if (e.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { timeout: true };
    throw e;
  }
})));

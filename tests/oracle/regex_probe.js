// Test oracle for rawko_tui.core.jsregex: what V8 says of `new RegExp(source, flags).exec(text)`.
// Input (stdin): [[source, flags, text], …]; output: [{error} | {span: [start, end] | null}, …] in UTF-16 units.
"use strict";
const fs = require("fs");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([source, flags, text]) => {
  let re;
  try { re = new RegExp(source, flags); } catch (e) { return { error: e.message }; }
  const m = re.exec(text);
  return { span: m ? [m.index, m.index + m[0].length] : null };
})));
